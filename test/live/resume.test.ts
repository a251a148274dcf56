/**
 * Gapless resume: a WebSocket client that drops in the middle of traffic and comes back with `since`
 * gets exactly the settlements it missed, then live ones, with none repeated, while payments keep
 * arriving; a replay longer than one chunk runs while settlements are committed; SSE resumes the same
 * way from `Last-Event-ID` and `?since=`.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Settlement } from '../../src/wire/settlement.js'
import { key, settlementsOnChain, waitFor, waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { openSse, subscribe, useLiveExplorer, type WsClient } from './live-client.js'

const live = useLiveExplorer({ settlements: 3 })
const client = () => live.client()

/** Sends `batches` batches of `size` payments one after another. */
async function traffic(batches: number, size: number): Promise<void> {
  for (let i = 0; i < batches; i++) await sendSettlements(live.chain, size)
}

async function onChainAfter(cursorEvent: { blockNumber: number; logIndex: number }): Promise<Settlement[]> {
  return (await settlementsOnChain(live.chain)).filter((e) => e.blockNumber > cursorEvent.blockNumber || (e.blockNumber === cursorEvent.blockNumber && e.logIndex > cursorEvent.logIndex))
}

/**
 * One more payment, in every stream's filter below (the first token, recipient 1), and its settlement.
 * Feeds deliver in chain order: once a stream has it, whatever was sent before it, a repeat included, has
 * arrived too — a positive signal instead of a pause that proves nothing on a slow machine.
 */
async function lastPayment(): Promise<Settlement> {
  await sendSettlements(live.chain, 1, { recipient: () => live.chain.deployment.recipients[1]! })
  const last = (await settlementsOnChain(live.chain)).at(-1)!
  assert.equal(last.token, live.chain.deployment.tokens[0]!.address.toLowerCase())
  return last
}

const includes = (events: { blockNumber: number; logIndex: number }[], event: Settlement) => events.some((e) => key(e) === key(event))

function assertUniqueInOrder(events: Settlement[]): void {
  const keys = events.map(key)
  assert.equal(new Set(keys).size, keys.length, 'no settlement twice')
  const positions = events.map((e) => e.blockNumber * 1e6 + e.logIndex)
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'chain order')
}

describe('resume from a cursor', () => {
  test('a WebSocket client dropped mid-traffic resumes with since and gets exactly what it missed', async () => {
    const recipient = live.chain.deployment.recipients[1]!.toLowerCase()
    const first = await client()
    await subscribe(first, { id: 'all' })
    await subscribe(first, { id: 'mine', filter: { recipient } })
    const sending = traffic(8, 5)
    await first.waitForSettlements(8, 'all')
    first.socket.terminate()
    await waitFor('the socket to close', () => first.closed)
    const seenAll = first.settlements('all')
    const seenMine = first.settlements('mine')
    const lastAll = seenAll[seenAll.length - 1]!
    const lastMine = seenMine[seenMine.length - 1]

    await new Promise((resolve) => setTimeout(resolve, 300))
    const second = await client()
    await subscribe(second, { id: 'all', since: lastAll.cursor })
    if (lastMine) await subscribe(second, { id: 'mine', filter: { recipient }, since: lastMine.cursor })
    else await subscribe(second, { id: 'mine', filter: { recipient }, since: seenAll[0]!.cursor })
    await sending
    await traffic(1, 4)
    const last = await lastPayment()
    await waitFor('the last payment on both subscriptions', () => [second.settlements('all'), second.settlements('mine')].every((got) => includes(got.map((m) => m.data as Settlement), last)))

    const expectedAll = await onChainAfter(lastAll.data)
    const gotAll = second.settlements('all').map((m) => m.data as Settlement)
    assert.deepEqual(gotAll, expectedAll)
    assertUniqueInOrder(gotAll)
    const firstSeen = seenAll[0]!.data as Settlement
    const fromFirst = [firstSeen, ...(await onChainAfter(firstSeen))]
    assert.deepEqual([...seenAll.map((m) => m.data as Settlement), ...gotAll], fromFirst, 'before the drop + after the resume = everything, once')

    const mineSince = lastMine?.data ?? seenAll[0]!.data
    const expectedMine = (await onChainAfter(mineSince)).filter((e) => e.recipient === recipient)
    assert.ok(expectedMine.length > 0)
    assert.deepEqual(second.settlements('mine').map((m) => m.data), expectedMine)
  })

  test('replays longer than one chunk, started while settlements are committed, have no gap and no repeat', async () => {
    await traffic(3, 100)
    await waitForHead(live.chain, live.explorer.url)
    const firstPage = await live.explorer.get('/events?order=asc&limit=1')
    const start = firstPage.body.events[0] as Settlement
    const startCursor = firstPage.body.nextCursor as string
    // Replays start one after another while payments are indexed, so chunk boundaries meet commits.
    let sending = true
    const sent = traffic(6, 8).finally(() => (sending = false))
    const replaying: WsClient[] = []
    while (sending || replaying.length < 3) {
      const c = await client()
      await subscribe(c, { id: 'replay', since: startCursor })
      replaying.push(c)
      await new Promise((resolve) => setTimeout(resolve, 60))
    }
    await sent
    const last = await lastPayment()
    const expected = (await onChainAfter(start)).map(key)
    assert.ok(expected.length > 300, `replay of ${expected.length}`)
    for (const c of replaying) {
      await waitFor('the last payment after the replay', () => includes(c.settlements('replay').map((m) => m.data as Settlement), last))
      assert.deepEqual(c.settlements('replay').map((m) => key(m.data)), expected)
    }
  })

  test('SSE resumes from Last-Event-ID, and from ?since=, with filters', async () => {
    const token = live.chain.deployment.tokens[0]!.address.toLowerCase()
    const sse = await openSse(live.explorer.url, `?token=${token}`)
    assert.equal(sse.status, 200)
    assert.match(String(sse.headers['content-type']), /^text\/event-stream/)
    const sending = traffic(4, 6)
    await waitFor('three SSE settlements', () => sse.settlements().length >= 3)
    sse.close()
    const seen = sse.settlements() as Settlement[]
    const lastId = sse.frames.filter((f) => f.event === 'settlement').at(-1)!.id!
    await new Promise((resolve) => setTimeout(resolve, 200))

    const resumed = await openSse(live.explorer.url, `?token=${token}`, { 'last-event-id': lastId })
    const bySince = await openSse(live.explorer.url, `?token=${token}&since=${lastId}`)
    await sending
    // An explorer behind the chain (a loaded CI machine) may have delivered every payment of the first
    // traffic before the close: more after it, so that there is something to resume.
    await traffic(2, 6)
    const last = await lastPayment()
    const expected = (await onChainAfter(seen.at(-1)!)).filter((e) => e.token === token)
    assert.ok(expected.length > 0)
    for (const stream of [resumed, bySince]) {
      await waitFor('the last payment on the resumed SSE stream', () => includes(stream.settlements() as Settlement[], last))
      assert.deepEqual(stream.settlements(), expected)
      const ids = stream.frames.filter((f) => f.event === 'settlement').map((f) => f.id)
      assert.equal(new Set(ids).size, ids.length)
      stream.close()
    }
  })
})
