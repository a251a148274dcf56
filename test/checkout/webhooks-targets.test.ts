/**
 * Issue 21 item 10, webhook URLs aimed inside the processor's network (a real PostgreSQL, a real
 * receiver on 127.0.0.1): off the local chain a URL naming a loopback address, or a host name resolving
 * to one, is refused before any request — the receiver sees nothing and the merchant reads why — and the
 * reasons a merchant reads never carry an address from inside (a refused connection is
 * "ECONNREFUSED: connection refused"). The address ranges refused, IPv4-mapped IPv6 included.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startWebhookDelivery } from '../../src/processor/webhooks/index.js'
import { isInternalAddress } from '../../src/processor/webhooks/webhook-target.js'
import { insertMerchant } from '../../src/processor/db/merchants.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { attemptRows, enqueue, eventRow, log, newChargeId, testOptions, webhookWorld } from './webhooks-fixture.js'

const world = webhookWorld()
const { receivers } = world

const firstAttempt = (id: string) => waitFor(`a first attempt of ${id}`, async () => (await attemptRows(world.db, id))[0])

test('off the local chain, a loopback target, by address or by name, is refused without a request', async () => {
  const worker = await startWebhookDelivery(testOptions({ allowInternalTargets: false }), { db: world.db, log })
  try {
    const inside = await receivers.start()
    for (const url of [inside.url, inside.url.replace('127.0.0.1', 'localhost'), inside.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')]) {
      const merchant = await insertMerchant(world.db.pool, { name: `Inside ${url}`, webhookUrl: url, acquirerId: null })
      const id = await enqueue(world.db, merchant, newChargeId())
      const attempt = await firstAttempt(id)
      assert.equal(attempt.statusCode, null, url)
      assert.equal(attempt.error, 'refused: the webhook URL leads to a loopback, private or link-local address, which webhooks may not reach', url)
      assert.equal((await eventRow(world.db, id)).lastError, attempt.error)
    }
    assert.equal(inside.requests.length, 0)
  } finally {
    await worker.stop()
  }
})

test('what a merchant reads of a failed connection names no address', async () => {
  const worker = await startWebhookDelivery(testOptions(), { db: world.db, log })
  try {
    const gone = await receivers.start()
    await gone.close()
    const merchant = await insertMerchant(world.db.pool, { name: 'Gone', webhookUrl: gone.url, acquirerId: null })
    const attempt = await firstAttempt(await enqueue(world.db, merchant, newChargeId()))
    assert.equal(attempt.error, 'ECONNREFUSED: connection refused')
  } finally {
    await worker.stop()
  }
})

test('the refused ranges: loopback, private, link-local, shared, reserved, unique-local, IPv4-mapped; public ones pass', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1']) {
    assert.equal(isInternalAddress(address), true, address)
  }
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1']) assert.equal(isInternalAddress(address), false, address)
})
