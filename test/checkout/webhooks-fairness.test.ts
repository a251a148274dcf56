/**
 * Issue 21 item 9, one slow webhook endpoint must not delay everyone (a real PostgreSQL, real receivers):
 * a merchant whose endpoint hangs holds at most WEBHOOK_MERCHANT_CONCURRENCY of the worker's slots, so
 * another merchant's event is delivered at once; a merchant whose endpoint keeps failing trips its circuit
 * breaker (no attempts during the cooldown, whatever the backoff says), and one probe after it closes the
 * breaker again once the endpoint answers. Issue 38 item 3: endpoints that answer 2xx, but slowly, never
 * trip the breaker; ten of them (5 s each, four requests at a time each: more than the worker's sixteen
 * slots) must still leave a fast merchant's p95 under 2 s, and are themselves all served.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { startWebhookDelivery } from '../../src/processor/webhooks/index.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { delivered, enqueue, eventRow, log, newChargeId, newMerchant, testOptions, webhookWorld, type Receiver } from './webhooks-fixture.js'

const world = webhookWorld()
const { receivers } = world

test("a hanging endpoint holds its merchant's share of the slots, not the worker: another merchant is served at once", async () => {
  const worker = await startWebhookDelivery(testOptions({ concurrency: 16, perMerchantConcurrency: 2, timeoutMs: 3_000 }), { db: world.db, log })
  try {
    let hanging = 0
    let mostHanging = 0
    const slow = await receivers.start(() => {
      mostHanging = Math.max(mostHanging, ++hanging)
      return 'hang'
    })
    const fast = await receivers.start()
    const slowMerchant = await newMerchant(world.db, slow, 'Slow Shop')
    const fastMerchant = await newMerchant(world.db, fast, 'Fast Shop')
    for (let i = 0; i < 30; i++) await enqueue(world.db, slowMerchant, newChargeId())
    await waitFor('the slow endpoint to be called', () => slow.requests.length > 0)
    await sleep(200)

    const queuedAt = Date.now()
    const id = await enqueue(world.db, fastMerchant, newChargeId())
    await waitFor('the fast merchant delivered', async () => (await eventRow(world.db, id)).status === 'delivered', 10_000)
    const waitedMs = Date.now() - queuedAt
    assert.ok(waitedMs < 1_000, `the fast merchant waited ${waitedMs} ms behind the slow one`)
    assert.equal(mostHanging, 2, 'requests in flight to the slow endpoint')
  } finally {
    await worker.stop()
  }
})

test('ten merchants answering 2xx in 5 s each do not fill the worker: a fast merchant\'s p95 stays under 2 s, and every slow event is delivered once', async () => {
  const SLOW_MERCHANTS = 10
  const SLOW_EVENTS_EACH = 8
  const FAST_EVENTS = 30
  const slowIds: string[] = []
  const slowEndpoints: Receiver[] = []
  for (let m = 0; m < SLOW_MERCHANTS; m++) {
    const endpoint = await receivers.start(async () => {
      await sleep(5_000)
      return 200
    })
    slowEndpoints.push(endpoint)
    const merchant = await newMerchant(world.db, endpoint, `Slow Shop ${m}`)
    for (let i = 0; i < SLOW_EVENTS_EACH; i++) slowIds.push(await enqueue(world.db, merchant, newChargeId()))
  }
  // The default worker: 16 slots, 4 per merchant, 10 s per request; 5 s answers are no failures.
  const worker = await startWebhookDelivery(testOptions({ concurrency: 16, perMerchantConcurrency: 4, timeoutMs: 10_000, breakerFailures: 5 }), { db: world.db, log })
  try {
    await waitFor('the slow endpoints to be called', () => slowEndpoints.some((e) => e.requests.length > 0), 10_000)

    const fast = await receivers.start()
    const fastMerchant = await newMerchant(world.db, fast, 'Fast Shop')
    const queuedAt = new Map<string, number>()
    for (let i = 0; i < FAST_EVENTS; i++) {
      const chargeId = newChargeId()
      queuedAt.set(chargeId, Date.now())
      await enqueue(world.db, fastMerchant, chargeId)
      await sleep(300)
    }
    await waitFor('every fast event delivered', () => delivered(fast).length >= FAST_EVENTS, 60_000)
    const latencies = delivered(fast).map((r) => r.receivedAt - queuedAt.get(r.chargeId)!).sort((a, b) => a - b)
    const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1]!
    assert.ok(p95 < 2_000, `fast merchant: p95 ${p95} ms, max ${latencies.at(-1)} ms (all: ${latencies.join(', ')})`)

    await waitFor('every slow event delivered', async () => {
      for (const id of slowIds) if ((await eventRow(world.db, id)).status !== 'delivered') return false
      return true
    }, 60_000)
    for (const endpoint of slowEndpoints) assert.equal(endpoint.requests.length, SLOW_EVENTS_EACH, 'each slow event sent once')
  } finally {
    await worker.stop()
  }
})

test('an endpoint failing WEBHOOK_BREAKER_FAILURES times in a row is left alone for the cooldown; one probe closes the breaker when it answers', async () => {
  const cooldownMs = 1_500
  const worker = await startWebhookDelivery(
    testOptions({ perMerchantConcurrency: 4, breakerFailures: 3, breakerCooldownMs: cooldownMs, backoffBaseMs: 20, backoffMaxMs: 40 }),
    { db: world.db, log },
  )
  try {
    let healthy = false
    const flaky = await receivers.start(() => (healthy ? 200 : 500))
    const merchant = await newMerchant(world.db, flaky, 'Flaky Shop')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push(await enqueue(world.db, merchant, newChargeId()))
    // Attempts already in flight when the third failure trips the breaker still end; then nothing.
    await waitFor('three failed attempts', () => flaky.requests.length >= 3)
    await sleep(300)
    const whenOpen = flaky.requests.length
    assert.ok(whenOpen >= 3 && whenOpen <= 3 + 4 - 1, `${whenOpen} attempts before the breaker opened`)
    await sleep(cooldownMs * 0.5)
    assert.equal(flaky.requests.length, whenOpen, 'attempts while the breaker is open')

    healthy = true
    await waitFor('every event delivered after the cooldown', async () => {
      for (const id of ids) if ((await eventRow(world.db, id)).status !== 'delivered') return false
      return true
    }, 10_000)
    const probe = delivered(flaky)[0]!
    assert.ok(probe.receivedAt - flaky.requests[whenOpen - 1]!.receivedAt >= cooldownMs - 100, 'the probe came after the cooldown')
    const { rows } = await world.db.pool.query(`SELECT webhook_failures, webhook_paused_until FROM merchants WHERE id = $1`, [merchant.id])
    assert.deepEqual(rows[0], { webhook_failures: 0, webhook_paused_until: null })
  } finally {
    await worker.stop()
  }
})
