/**
 * Issue 21 item 11, the master webhook secrets at rest (a real PostgreSQL, real receivers verifying with
 * the `standardwebhooks` package): the stored secret is AES-GCM sealed under WEBHOOK_ENCRYPTION_KEY, not
 * the secret itself, and deliveries verify exactly as before; a worker given another encryption key
 * refuses to start, naming it; a WEBHOOK_SECRET_KEY that is none of the stored secrets is not used and
 * the worker warns; a secret stored in the clear by an older version is sealed at start and keeps signing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deriveMerchantSecret, startWebhookDelivery } from '../../src/processor/webhooks/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { delivered, enqueue, log, newChargeId, newMerchant, testOptions, verifiesWith, webhookWorld } from './webhooks-fixture.js'

const world = webhookWorld()
const options = testOptions()

async function storedSecrets(): Promise<string[]> {
  return (await world.db.pool.query<{ secret: string }>(`SELECT secret FROM webhook_secrets ORDER BY id`)).rows.map((row) => row.secret)
}

/** Starts a worker, has it deliver one event to a new merchant, stops it; returns whether `master` signed it. */
async function deliverOne(master: string): Promise<boolean> {
  const worker = await startWebhookDelivery(options, { db: world.db, log })
  try {
    const receiver = await world.receivers.start()
    const merchant = await newMerchant(world.db, receiver)
    await enqueue(world.db, merchant, newChargeId())
    await waitFor('the delivery', () => delivered(receiver).length === 1)
    return verifiesWith(deriveMerchantSecret(master, merchant.id), delivered(receiver)[0]!)
  } finally {
    await worker.stop()
  }
}

test('the stored master secret is sealed, not the secret; deliveries verify as before', async () => {
  assert.equal(await deliverOne(options.secretKey!), true)
  const [stored] = await storedSecrets()
  assert.ok(stored && !stored.includes(options.secretKey!.slice('whsec_'.length)), `stored: ${stored}`)
  assert.match(stored!, /^sealed:v1:[0-9a-f]{8}:[A-Za-z0-9+/]+=*$/)
})

test('another WEBHOOK_ENCRYPTION_KEY cannot open them: the worker refuses to start, naming it', async () => {
  await assert.rejects(
    startWebhookDelivery({ ...options, encryptionKey: 'another-encryption-key-0123456789abcdef' }, { db: world.db, log }),
    /encrypted under another WEBHOOK_ENCRYPTION_KEY/,
  )
})

test('a changed WEBHOOK_SECRET_KEY is not used, and the worker says so', async () => {
  const lines: string[] = []
  const changed = testOptions()
  const worker = await startWebhookDelivery(changed, { db: world.db, log: createLogger('warn', {}, (line) => lines.push(line) > 0) })
  await worker.stop()
  assert.equal((await storedSecrets()).length, 1)
  assert.ok(lines.some((line) => line.includes('WEBHOOK_SECRET_KEY is none of the stored webhook secrets')), lines.join('\n'))
})

test('a secret stored in the clear (before encryption) is sealed at start and keeps signing', async () => {
  await world.db.pool.query(`UPDATE webhook_secrets SET secret = $1`, [options.secretKey])
  assert.equal(await deliverOne(options.secretKey!), true)
  assert.match((await storedSecrets())[0]!, /^sealed:v1:/)
})
