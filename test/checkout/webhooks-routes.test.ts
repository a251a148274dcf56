/**
 * The merchant API's webhook routes (the fastify plugin on a plain-HTTP instance; the merchant comes from
 * a test header where the checkout server reads the client certificate): the delivery log with attempts
 * and keyset pages, filters, the manual retry of a failed event, another merchant's events, manual
 * retries limited per merchant, and every refused input as application/problem+json.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { startWebhookDelivery, webhookRoutes, type WebhookDelivery } from '../../src/processor/webhooks/index.js'
import type { Merchant } from '../../src/processor/db/merchants.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { enqueue, eventRow, log, newChargeId, newMerchant, startReceiver, testOptions, type Receiver } from './webhooks-fixture.js'

const RETRIES_PER_MINUTE = 10
let db: Database
let app: FastifyInstance
let worker: WebhookDelivery
let receiver: Receiver
let shop: Merchant
let rival: Merchant
/** Charges whose webhooks the receiver refuses until a test lets them through. */
const refused = new Set<string>()

before(async () => {
  db = await openDatabase(await testDatabase(), log)
  receiver = await startReceiver((r) => (refused.has(r.chargeId) ? 500 : 200))
  worker = await startWebhookDelivery(testOptions({ retryWindowMs: 400, backoffBaseMs: 50, backoffMaxMs: 100 }), { db, log })
  app = Fastify()
  await app.register(webhookRoutes, { db, getMerchantId: (request) => String(request.headers['x-test-merchant']), retriesPerMinute: RETRIES_PER_MINUTE })
  shop = await newMerchant(db, receiver, 'Shop')
  rival = await newMerchant(db, receiver, 'Rival')
})
after(async () => {
  await app?.close()
  await worker?.stop()
  await receiver?.close()
  await db?.close()
})

async function call(method: 'GET' | 'POST', url: string, merchant: Merchant = shop) {
  const response = await app.inject({ method, url, headers: { 'x-test-merchant': merchant.id } })
  return { status: response.statusCode, type: String(response.headers['content-type']), body: response.json() }
}

function assertProblem(response: Awaited<ReturnType<typeof call>>, status: number, param?: string, detail?: RegExp) {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.match(response.type, /^application\/problem\+json/)
  assert.deepEqual(Object.keys(response.body).filter((k) => k !== 'param').sort(), ['detail', 'status', 'title', 'type'])
  assert.equal(response.body.status, status)
  assert.equal(response.body.param, param)
  if (detail) assert.match(response.body.detail, detail)
}

const waitForStatus = (id: string, status: string) => waitFor(`${id} ${status}`, async () => (await eventRow(db, id)).status === status)

describe('GET /api/v1/webhook-deliveries', () => {
  let charge: string
  let ids: string[]
  before(async () => {
    charge = newChargeId()
    refused.add(charge)
    const other = newChargeId()
    ids = [await enqueue(db, shop, charge, 'charge.confirming'), await enqueue(db, shop, other, 'charge.expired'), await enqueue(db, shop, charge, 'charge.settled')]
    await enqueue(db, rival, newChargeId())
    await waitForStatus(ids[1]!, 'delivered')
    await waitForStatus(ids[0]!, 'failed')
    await waitForStatus(ids[2]!, 'failed')
  })

  test("lists the merchant's events newest first with their attempts, and pages with a keyset cursor", async () => {
    const all = await call('GET', '/api/v1/webhook-deliveries')
    assert.equal(all.status, 200)
    assert.deepEqual(all.body.deliveries.map((d: { id: string }) => d.id), [...ids].reverse())
    assert.equal(all.body.nextCursor, null)

    const [latest, middle, first] = all.body.deliveries
    assert.deepEqual(Object.keys(first).sort(), ['attempts', 'chargeId', 'createdAt', 'deliveredAt', 'id', 'lastError', 'nextAttemptAt', 'payload', 'status', 'type'])
    assert.equal(first.chargeId, charge)
    assert.equal(first.type, 'charge.confirming')
    assert.equal(first.status, 'failed')
    assert.equal(first.lastError, 'HTTP 500')
    assert.equal(first.nextAttemptAt, null)
    assert.deepEqual(first.payload.data.id, charge)
    assert.ok(first.attempts.length >= 2)
    assert.ok(first.attempts.every((a: { statusCode: number; error: null; durationMs: number }) => a.statusCode === 500 && a.error === null && a.durationMs >= 0))
    const times = first.attempts.map((a: { attemptedAt: string }) => Date.parse(a.attemptedAt))
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'attempts newest first')
    assert.equal(middle.status, 'delivered')
    assert.ok(Date.parse(middle.deliveredAt) > 0)
    assert.deepEqual(middle.attempts.map((a: { statusCode: number }) => a.statusCode), [200])
    assert.equal(latest.status, 'failed')

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page = await call('GET', `/api/v1/webhook-deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(page.status, 200)
      assert.ok(page.body.deliveries.length <= 2)
      seen.push(...page.body.deliveries.map((d: { id: string }) => d.id))
      cursor = page.body.nextCursor
    } while (cursor)
    assert.deepEqual(seen, [...ids].reverse())
  })

  test('filters by charge and by status', async () => {
    const byCharge = await call('GET', `/api/v1/webhook-deliveries?chargeId=${charge}`)
    assert.deepEqual(byCharge.body.deliveries.map((d: { id: string }) => d.id), [ids[2], ids[0]])
    const delivered = await call('GET', '/api/v1/webhook-deliveries?status=delivered')
    assert.deepEqual(delivered.body.deliveries.map((d: { id: string }) => d.id), [ids[1]])
    const rivals = await call('GET', '/api/v1/webhook-deliveries', rival)
    assert.equal(rivals.body.deliveries.length, 1)
    assert.ok(!ids.includes(rivals.body.deliveries[0].id))
    const none = await call('GET', '/api/v1/webhook-deliveries?chargeId=ch_unknown')
    assert.deepEqual(none.body, { deliveries: [], nextCursor: null })
  })

  test('POST /:id/retry re-queues a failed event now; it is delivered in order with a fresh window', async () => {
    refused.delete(charge)
    const retried = await call('POST', `/api/v1/webhook-deliveries/${ids[2]}/retry`)
    assert.equal(retried.status, 202)
    assert.equal(retried.body.id, ids[2])
    assert.equal(retried.body.status, 'pending')
    assert.ok(retried.body.nextAttemptAt)
    await waitForStatus(ids[2]!, 'delivered')
    assert.equal((await eventRow(db, ids[0]!)).status, 'failed', 'only the retried event is re-sent')
    const event = (await call('GET', `/api/v1/webhook-deliveries?chargeId=${charge}&status=delivered`)).body.deliveries[0]
    assert.equal(event.id, ids[2])
    assert.equal(event.attempts[0].statusCode, 200)
    assert.equal(event.lastError, null)

    // Retrying the earlier event, then the later again: the earlier goes first (ordering per charge).
    assert.equal((await call('POST', `/api/v1/webhook-deliveries/${ids[0]}/retry`)).status, 202)
    assert.equal((await call('POST', `/api/v1/webhook-deliveries/${ids[2]}/retry`)).status, 202)
    await waitForStatus(ids[2]!, 'delivered')
    await waitForStatus(ids[0]!, 'delivered')
    const order = receiver.requests.filter((r) => r.chargeId === charge && r.answer === 200).map((r) => r.id)
    assert.deepEqual(order.slice(-2), [ids[0], ids[2]])
  })

  test("retrying another merchant's event, or an unknown one, is 404", async () => {
    assertProblem(await call('POST', `/api/v1/webhook-deliveries/${ids[0]}/retry`, rival), 404, 'id', /no webhook delivery/)
    assertProblem(await call('POST', '/api/v1/webhook-deliveries/msg_000000000000000000000000/retry'), 404, 'id')
  })
})

test('refused inputs are 400 problems naming the parameter', async () => {
  const cases: [string, string, RegExp][] = [
    ['/api/v1/webhook-deliveries?chargeid=x', 'chargeid', /unknown query parameter "chargeid"/],
    ['/api/v1/webhook-deliveries?limit=0', 'limit', /limit must be >= 1/],
    ['/api/v1/webhook-deliveries?limit=101', 'limit', /limit must be <= 100/],
    ['/api/v1/webhook-deliveries?limit=ten', 'limit', /limit must be integer/],
    ['/api/v1/webhook-deliveries?cursor=abc', 'cursor', /cursor must match/],
    ['/api/v1/webhook-deliveries?cursor=s99999999999999999999', 'cursor', /cursor/],
    ['/api/v1/webhook-deliveries?status=lost', 'status', /status must be equal to one of/],
    ['/api/v1/webhook-deliveries?chargeId=', 'chargeId', /chargeId must NOT have fewer than 1 characters/],
    ['/api/v1/webhook-deliveries?chargeId=a&chargeId=b', 'chargeId', /chargeId must be string/],
  ]
  for (const [url, param, detail] of cases) assertProblem(await call('GET', url), 400, param, detail)
  assertProblem(await call('POST', '/api/v1/webhook-deliveries/not-an-id/retry'), 400, 'id', /path parameter id must match/)
})

test('manual retries past the limit are a 429 problem with Retry-After, for that merchant only', async () => {
  const busy = await newMerchant(db, receiver, 'Busy')
  const id = await enqueue(db, busy, newChargeId())
  await waitForStatus(id, 'delivered')
  for (let i = 0; i < RETRIES_PER_MINUTE; i++) assert.equal((await call('POST', `/api/v1/webhook-deliveries/${id}/retry`, busy)).status, 202)
  const response = await app.inject({ method: 'POST', url: `/api/v1/webhook-deliveries/${id}/retry`, headers: { 'x-test-merchant': busy.id } })
  assertProblem({ status: response.statusCode, type: String(response.headers['content-type']), body: response.json() }, 429, undefined, /more than 10 manual retries a minute/)
  assert.ok(Number(response.headers['retry-after']) > 0)
  const calm = await newMerchant(db, receiver, 'Calm')
  assert.equal((await call('POST', `/api/v1/webhook-deliveries/${await enqueue(db, calm, newChargeId())}/retry`, calm)).status, 202)
})
