/**
 * The webhook delivery worker on a real PostgreSQL against real receivers verifying with the
 * `standardwebhooks` package: signatures and the exact body, retries with backoff through 500s, a dead
 * receiver and a timeout, ordering per charge under failures, giving up after the retry window, and a
 * failed event no longer holding its charge back.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, test } from 'node:test'
import { startWebhookDelivery, type WebhookDelivery } from '../../src/processor/webhooks/index.js'
import { deriveMerchantSecret } from '../../src/processor/webhooks/index.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { liveWebhookSecrets } from '../../src/processor/db/webhook-secrets.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { attemptRows, delivered, enqueue, eventRow, log, newChargeId, newMerchant, startReceiver, testOptions, testSealer, verifiesWith, type Receiver } from './webhooks-fixture.js'

let db: Database
const options = testOptions({ timeoutMs: 500, retryWindowMs: 60_000, backoffBaseMs: 100, backoffMaxMs: 400 })
const receivers: Receiver[] = []
let workers: WebhookDelivery[] = []

before(async () => {
  db = await openDatabase(await testDatabase(), log)
})
beforeEach(async () => {
  workers = [await startWebhookDelivery(options, { db, log })]
})
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop()))
})
after(async () => {
  await Promise.all(receivers.map((r) => r.close()))
  await db?.close()
})

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer)
  receivers.push(started)
  return started
}

const waitForStatus = (id: string, status: string) => waitFor(`${id} ${status}`, async () => (await eventRow(db, id)).status === status)

test('a delivery carries the exact payload, the Standard Webhooks headers and a signature the merchant verifies', async () => {
  const shop = await receiver()
  const merchant = await newMerchant(db, shop)
  const other = await newMerchant(db, shop, 'Other Shop')
  const chargeId = newChargeId()
  const id = await enqueue(db, merchant, chargeId, 'charge.settled')
  await waitForStatus(id, 'delivered')

  const [request] = shop.requests
  assert.equal(shop.requests.length, 1)
  assert.equal(request!.id, id)
  assert.equal(request!.headers['content-type'], 'application/json')
  assert.match(request!.headers['webhook-timestamp'] as string, /^\d{10}$/)
  assert.ok(Math.abs(request!.timestamp - Date.now() / 1000) < 300)
  assert.equal(request!.signatures.length, 1)
  assert.match(request!.signatures[0]!, /^v1,[A-Za-z0-9+/]{43}=$/)
  assert.equal(request!.body, (await eventRow(db, id)).body)
  const payload = JSON.parse(request!.body)
  assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data'])
  assert.equal(payload.type, 'charge.settled')
  assert.equal(payload.data.id, chargeId)

  const [master] = (await liveWebhookSecrets(db.pool, testSealer)).secrets
  assert.equal(master!.secret, options.secretKey)
  assert.ok(verifiesWith(deriveMerchantSecret(master!.secret, merchant.id), request!))
  assert.ok(!verifiesWith(deriveMerchantSecret(master!.secret, other.id), request!), "another merchant's secret must not verify")
  assert.ok(!verifiesWith(master!.secret, request!), 'the master secret is not what signs')

  const attempts = await attemptRows(db, id)
  assert.equal(attempts.length, 1)
  assert.equal(attempts[0]!.statusCode, 200)
  assert.equal(attempts[0]!.error, null)
  assert.ok(attempts[0]!.durationMs >= 0)
})

test('500s, a dead receiver and a timeout are retried with growing delays until a 2xx', async () => {
  const answers: Receiver['answer'][] = [() => 500, () => 503, () => 'hang']
  let shop = await receiver((r) => (answers.shift() ?? (() => 500))(r))
  const merchant = await newMerchant(db, shop)
  const id = await enqueue(db, merchant, newChargeId())
  await waitFor('the timeout', async () => (await attemptRows(db, id)).some((a) => a.error?.startsWith('timed out')))
  await shop.close()
  await waitFor('a refused connection', async () => (await attemptRows(db, id)).some((a) => a.error?.includes('ECONNREFUSED')))
  assert.notEqual((await eventRow(db, id)).status, 'delivered')
  shop = await startReceiver(() => 200, shop.port)
  receivers.push(shop)
  await waitForStatus(id, 'delivered')

  const attempts = await attemptRows(db, id)
  assert.deepEqual(attempts.slice(0, 3).map((a) => a.statusCode ?? a.error), [500, 503, `timed out after ${options.timeoutMs} ms`])
  const between = attempts.slice(3, -1)
  assert.ok(between.some((a) => a.error?.includes('ECONNREFUSED')))
  assert.ok(between.every((a) => a.statusCode === 500 || a.error?.includes('ECONNREFUSED')))
  assert.equal(attempts.at(-1)!.statusCode, 200)
  assert.equal(delivered(shop).length, 1)
  const event = await eventRow(db, id)
  assert.equal(event.attempts, attempts.length)
  assert.equal(event.lastError, null)
  // Equal jitter: the n-th retry waits at least half of min(max, base * 2^(n-1)) after the n-th attempt started.
  for (let n = 1; n < attempts.length; n++) {
    const gap = attempts[n]!.attemptedAt.getTime() - attempts[n - 1]!.attemptedAt.getTime()
    const nominal = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** (n - 1))
    assert.ok(gap >= nominal / 2 - 5, `retry ${n} came ${gap} ms after the attempt before it (nominal ${nominal} ms)`)
  }
})

test("a charge's events arrive in order while its first one fails; other charges are not held back", async () => {
  let firstMayPass = false
  const shop = await receiver((r) => (r.chargeId === held && !firstMayPass ? 500 : 200))
  const merchant = await newMerchant(db, shop)
  const held = newChargeId()
  const free = newChargeId()
  const ids = [await enqueue(db, merchant, held, 'charge.confirming'), await enqueue(db, merchant, held, 'charge.settled'), await enqueue(db, merchant, held, 'charge.late_payment')]
  const freeId = await enqueue(db, merchant, free)
  await waitForStatus(freeId, 'delivered')
  await waitFor('the first event to fail twice', async () => (await attemptRows(db, ids[0]!)).length >= 2)
  assert.deepEqual(new Set(shop.requests.filter((r) => r.chargeId === held).map((r) => r.id)), new Set([ids[0]]), 'later events of the charge were sent before the first')

  firstMayPass = true
  for (const id of ids) await waitForStatus(id, 'delivered')
  const order = delivered(shop).filter((r) => r.chargeId === held).map((r) => r.id)
  assert.deepEqual(order, ids)
  const firstDelivered = shop.requests.findIndex((r) => r.id === ids[0] && r.answer === 200)
  assert.ok(shop.requests.slice(0, firstDelivered).every((r) => r.id !== ids[1] && r.id !== ids[2]))
})

test('an event failing for the whole retry window is marked failed, and stops holding its charge back', async () => {
  await Promise.all(workers.map((w) => w.stop()))
  const window = testOptions({ retryWindowMs: 1_000, backoffBaseMs: 100, backoffMaxMs: 300 })
  workers = [await startWebhookDelivery(window, { db, log })]
  let broken = true
  const shop = await receiver(() => (broken ? 500 : 204))
  const merchant = await newMerchant(db, shop)
  const chargeId = newChargeId()
  const first = await enqueue(db, merchant, chargeId, 'charge.confirming')
  const second = await enqueue(db, merchant, chargeId, 'charge.expired')
  await waitForStatus(first, 'failed')
  const attempts = await attemptRows(db, first)
  assert.ok(attempts.length >= 2)
  assert.ok(attempts.every((a) => a.statusCode === 500))
  // The window opens when the first attempt is claimed and is judged when each attempt ends, so on a
  // loaded machine the starts of the first and last attempts can be less than a window apart.
  const event = await eventRow(db, first)
  const endOf = (a: (typeof attempts)[number]) => a.attemptedAt.getTime() + a.durationMs
  const windowEnd = event.windowStartedAt!.getTime() + window.retryWindowMs
  assert.ok(endOf(attempts.at(-1)!) >= windowEnd - 2, `gave up ${windowEnd - endOf(attempts.at(-1)!)} ms before the window ended`)
  assert.ok(endOf(attempts.at(-2)!) < windowEnd + 2, 'kept trying after the window ended')
  assert.equal(event.lastError, 'HTTP 500')

  broken = false
  await waitForStatus(second, 'delivered')
  const lastOfFirst = attempts.at(-1)!.attemptedAt.getTime()
  assert.ok(shop.requests.filter((r) => r.id === second).every((r) => r.receivedAt >= lastOfFirst), 'the second event went out while the first was pending')
  assert.equal((await eventRow(db, first)).status, 'failed')
})

test('a redirect is a failed attempt and is not followed', async () => {
  let redirects = 1
  const shop = await receiver(() => (redirects-- > 0 ? 307 : 200))
  const merchant = await newMerchant(db, shop)
  const id = await enqueue(db, merchant, newChargeId())
  await waitForStatus(id, 'delivered')
  assert.deepEqual((await attemptRows(db, id)).map((a) => a.statusCode), [307, 200])
})
