/**
 * Replays under hostile clients (issue 21, item 13). A `since` far back with filters that never meet
 * (`payer` P, who pays only in token A, and `token` B) walks tens of thousands of candidates for one
 * match at the very end. Flooded from several connections, those walks must not stall the explorer's one
 * thread: another client's REST request, its live subscription and its own short replay are all answered
 * before any of the flood's replays has finished (they take their turns; each still ends with its match).
 * SUBSCRIBE is rate-limited per connection: past the burst, RATE_LIMIT_EXCEEDED, and the connection stays open.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { encodeCursor } from '../../src/explorer/store/cursor.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import type { WsClient } from './live-client.js'
import { seededAddress, useSeededExplorer, type SeededSettlement } from './seeded-explorer.js'

const PAIRS = 20_000
const PER_BLOCK = 20
const P = seededAddress(0x9a, 1)
const A = seededAddress(0x70, 1)
const B = seededAddress(0x70, 2)
const settlements: SeededSettlement[] = []
for (let i = 0; i < PAIRS; i++) {
  settlements.push({ payer: P, token: A, recipient: seededAddress(0x4e, i % 100) })
  settlements.push({ payer: seededAddress(0x9b, i % 500), token: B, recipient: seededAddress(0x4e, i % 100) })
}
// The one settlement matching both filters, last in the store.
settlements.push({ payer: P, token: B, recipient: seededAddress(0x4e, 7) })
const blockOf = (i: number) => Math.floor(i / PER_BLOCK) + 1
const cursorOf = (i: number) => encodeCursor(blockOf(i), i % PER_BLOCK)
const last = settlements.length - 1

const FLOOD_CONNECTIONS = 4
const SUBSCRIPTIONS = 16
const seeded = useSeededExplorer({ settlements, perBlock: PER_BLOCK, env: { WS_MAX_SUBSCRIPTIONS: String(SUBSCRIPTIONS), QUERY_WORKERS: '0' } })

const finished = (flood: WsClient[]) => flood.reduce((n, c) => n + c.settlements().length, 0)

describe('replays under a flood', () => {
  test('far-back replays with disjoint filters take turns: other clients are answered before any of them finishes', async () => {
    const flood = await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, () => seeded.client()))
    const other = await seeded.client()
    const total = FLOOD_CONNECTIONS * SUBSCRIPTIONS
    for (const c of flood) {
      for (let k = 0; k < SUBSCRIPTIONS; k++) c.send({ type: 'SUBSCRIBE', channel: 'settlements', id: `f${k}`, filter: { payer: P, token: B }, since: cursorOf(0) })
    }
    const seen: Record<string, number> = {}
    const rest = fetch(`${seeded.explorer.url}/events?limit=1`).then(async (r) => {
      seen.rest = finished(flood)
      return { status: r.status, body: await r.json() }
    })
    other.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'live' })
    other.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'recent', filter: { token: B }, since: cursorOf(last - 40) })
    const acked = other.next((m) => m.type === 'SUBSCRIBED' && m.id === 'live').then(() => (seen.ack = finished(flood)))
    const replayed = other.waitForSettlements(21, 'recent', 120_000).then(() => (seen.replay = finished(flood)))

    const answer = await rest
    assert.equal(answer.status, 200)
    assert.equal(answer.body.total, settlements.length)
    await acked
    await replayed
    assert.deepEqual(
      other.settlements('recent').map((m) => m.cursor),
      [...[...Array(20).keys()].map((k) => cursorOf(last - 39 + 2 * k)), cursorOf(last)],
      'the short replay is complete and in order',
    )
    await waitFor('every flood replay to finish', () => finished(flood) >= total, 180_000)
    for (const c of flood) {
      assert.deepEqual(c.settlements().map((m) => m.cursor), Array(SUBSCRIPTIONS).fill(cursorOf(last)), 'each replay ends with its one match')
      assert.equal(c.closed, undefined)
    }
    // On the main thread without turns, the other client waited behind every walk (64 of 64 finished).
    assert.ok(seen.rest! < total / 4, `the REST answer came after ${seen.rest} of ${total} flood replays had finished`)
    assert.ok(seen.ack! < total / 4, `the live subscription was acknowledged after ${seen.ack} of ${total} flood replays`)
    assert.ok(seen.replay! < total / 4, `the short replay finished after ${seen.replay} of ${total} flood replays`)
  })

  test('SUBSCRIBE past the burst is refused with RATE_LIMIT_EXCEEDED; the connection stays open', async () => {
    const c = await seeded.client()
    for (let i = 0; i < 40; i++) {
      c.send({ type: 'SUBSCRIBE', channel: 'settlements', id: `s${i}` })
      c.send({ type: 'UNSUBSCRIBE', id: `s${i}` })
    }
    await waitFor('an answer to every SUBSCRIBE', () => c.messages.filter((m) => m.type === 'SUBSCRIBED' || m.error?.code === 'RATE_LIMIT_EXCEEDED').length >= 40)
    const acknowledged = c.messages.filter((m) => m.type === 'SUBSCRIBED').length
    const refused = c.messages.filter((m) => m.error?.code === 'RATE_LIMIT_EXCEEDED')
    assert.ok(acknowledged >= SUBSCRIPTIONS, `the burst (WS_MAX_SUBSCRIPTIONS by default) is served: ${acknowledged}`)
    assert.ok(refused.length >= 10, `refused ${refused.length} of 40`)
    assert.ok(refused.every((m) => typeof m.id === 'string' && /^s\d+$/.test(m.id as string)), 'each refusal names its subscription')
    assert.equal(c.closed, undefined)

    await new Promise((resolve) => setTimeout(resolve, 1000))
    const from = c.messages.length
    c.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'later' })
    const answer = await c.next((m) => m.type === 'SUBSCRIBED' || m.type === 'ERROR', from)
    assert.equal(answer.type, 'SUBSCRIBED', 'the budget refills')
  })
})
