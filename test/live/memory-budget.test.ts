/**
 * The live feeds' memory under clients that never read (issue 21, item 14). Each of them replays the whole
 * store and stops reading: per connection, a replay pauses at half of LIVE_MAX_BUFFERED_BYTES, so no
 * single one is a slow consumer by its own bound, yet together they hold connections × that. The server
 * keeps what all connections hold within LIVE_MAX_TOTAL_BUFFERED_BYTES by closing the oldest slow
 * consumers (4008, as for the per-connection bound; each got a gapless prefix), and a client that reads
 * still gets its whole replay. One address may hold at most WS_MAX_CONNECTIONS_PER_IP live connections,
 * WebSocket and SSE together; past it the upgrade or the stream is refused with a 429 problem.
 */
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { describe, test } from 'node:test'
import { encodeCursor } from '../../src/explorer/store/cursor.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { connectWs, openSse, type WsClient } from './live-client.js'
import { seededAddress, useSeededExplorer, type SeededSettlement } from './seeded-explorer.js'

const SETTLEMENTS = 30_000
const PER_BLOCK = 20
const PER_CONNECTION = 1 << 20
const TOTAL = 3 << 20
const PER_IP = 12
const STALLED = 8

const settlements: SeededSettlement[] = Array.from({ length: SETTLEMENTS }, (_, i) => ({
  payer: seededAddress(0x9a, i % 300),
  token: seededAddress(0x70, i % 2),
  recipient: seededAddress(0x4e, i % 100),
}))
const cursorOf = (i: number) => encodeCursor(Math.floor(i / PER_BLOCK) + 1, i % PER_BLOCK)
const seeded = useSeededExplorer({
  settlements,
  perBlock: PER_BLOCK,
  env: { LIVE_MAX_BUFFERED_BYTES: String(PER_CONNECTION), LIVE_MAX_TOTAL_BUFFERED_BYTES: String(TOTAL), WS_MAX_CONNECTIONS_PER_IP: String(PER_IP), QUERY_WORKERS: '0' },
})

async function metrics(): Promise<string> {
  return (await fetch(`${seeded.explorer.url}/metrics`)).text()
}
const metric = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`explorer_${name}`))
const sum = (lines: string[]) => lines.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)
const socketOf = (c: WsClient) => (c.socket as unknown as { _socket: Socket })._socket
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Stalls STALLED clients one after the other, then checks the budget's closes; `stalled` collects them. */
async function fillAndCheck(stalled: WsClient[]): Promise<void> {
  for (let i = 0; i < STALLED; i++) {
    const c = await seeded.client()
    socketOf(c).pause()
    c.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'all', since: encodeCursor(0, 0) })
    stalled.push(c)
    // Its replay fills the socket and the server's buffer before the next one starts: the order of age.
    await sleep(700)
  }
  await waitFor('slow consumers closed for the total budget', async () => sum(metric(await metrics(), 'live_slow_consumer_closes_total').filter((l) => l.includes('bound="total"'))) > 0, 20_000)
  const held = sum(metric(await metrics(), 'live_buffered_bytes'))
  assert.ok(held > 0 && held <= TOTAL, `the connections hold ${held} unsent bytes (budget ${TOTAL})`)

  const reader = await seeded.client()
  reader.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'all', since: encodeCursor(0, 0) })
  await reader.waitForSettlements(SETTLEMENTS, 'all', 60_000)
  assert.deepEqual(reader.settlements().map((m) => m.cursor), settlements.map((_, i) => cursorOf(i)))
  assert.equal(reader.closed, undefined)
  assert.ok(sum(metric(await metrics(), 'live_buffered_bytes')) <= TOTAL)

  for (const c of stalled) socketOf(c).resume()
  await waitFor('each stalled client to be closed or to have its whole replay', () => stalled.every((c) => c.closed || c.settlements().length === SETTLEMENTS), 60_000)
  const closed = stalled.map((c) => c.closed !== undefined)
  const count = closed.filter(Boolean).length
  assert.ok(count >= 1 && count < STALLED, `${count} of ${STALLED} closed`)
  assert.deepEqual(closed, stalled.map((_, i) => i < count), 'the oldest are closed first')
  for (const c of stalled.slice(0, count)) {
    assert.equal(c.closed!.code, 4008)
    assert.match(c.closed!.reason, /^slow consumer/)
    const got = c.settlements().map((m) => m.cursor)
    assert.deepEqual(got, settlements.slice(0, got.length).map((_, i) => cursorOf(i)), 'a gapless prefix: resuming from its last cursor loses nothing')
  }
}

describe('memory under clients that never read', () => {
  test('past the total budget the oldest slow consumers are closed with 4008; a reading client gets its whole replay', async () => {
    const stalled: WsClient[] = []
    try {
      await fillAndCheck(stalled)
    } finally {
      for (const c of stalled) socketOf(c).resume()
    }
  })

  test(`one address holds at most WS_MAX_CONNECTIONS_PER_IP (${PER_IP}) live connections, WebSocket and SSE together`, async () => {
    await seeded.closeClients()
    await waitFor('every connection to be gone', async () => sum(metric(await metrics(), 'live_websocket_connections')) === 0)
    const held = await Promise.all(Array.from({ length: PER_IP - 1 }, () => seeded.client()))
    const sse = await openSse(seeded.explorer.url)
    assert.equal(sse.status, 200)
    try {
      await assert.rejects(connectWs(seeded.explorer.url), /upgrade refused with 429/)
      const refused = await fetch(`${seeded.explorer.url}/events/stream`)
      assert.equal(refused.status, 429)
      assert.match(refused.headers.get('content-type')!, /^application\/problem\+json/)
      assert.equal(refused.headers.get('retry-after'), '5')
      assert.equal(((await refused.json()) as { status: number }).status, 429)
      assert.equal(held.filter((c) => c.closed).length, 0, 'the connections held are untouched')

      await held.pop()!.close()
      await waitFor('a freed slot', async () => sum(metric(await metrics(), 'live_websocket_connections')) === PER_IP - 2)
      const again = await seeded.client()
      assert.equal(again.closed, undefined)
    } finally {
      sse.close()
    }
  })
})
