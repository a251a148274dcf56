/**
 * A WebSocket subscriber that stops reading is closed with 4008 "slow consumer" once the server holds
 * more than LIVE_MAX_BUFFERED_BYTES for it, while a fast subscriber on the same explorer receives every
 * settlement; what the slow one did receive is a gapless prefix, so it can resume from its last cursor.
 *
 * Loopback sockets absorb a few MB in kernel buffers before the server sees backpressure, so the slow
 * client holds many subscriptions (each settlement reaches it many times) to get there with few payments.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Socket } from 'node:net'
import { key, settlementsOnChain, waitFor, waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { subscribe, useLiveExplorer } from './live-client.js'

const live = useLiveExplorer({ settlements: 1, env: { LIVE_MAX_BUFFERED_BYTES: String(256 * 1024), WS_MAX_SUBSCRIPTIONS: '40' } })

async function metric(name: string): Promise<string> {
  const text = await (await fetch(`${live.explorer.url}/metrics`)).text()
  return text.split('\n').filter((l) => l.startsWith(`explorer_${name}`)).join('\n')
}

describe('backpressure', () => {
  test('a subscriber that stops reading is closed with 4008 while a fast one keeps receiving', async () => {
    // The set-up settlement indexed first: otherwise, on a busy machine, it arrives live after the subscription.
    await waitForHead(live.chain, live.explorer.url)
    const fast = await live.client()
    await subscribe(fast, { id: 'fast' })
    const slow = await live.client()
    for (let i = 0; i < 40; i++) await subscribe(slow, { id: `s${i}` })
    const from = (await settlementsOnChain(live.chain)).length
    ;(slow.socket as unknown as { _socket: Socket })._socket.pause()

    let sent = 0
    while (!(await metric('live_slow_consumer_closes_total')).includes('channel="websocket"')) {
      await sendSettlements(live.chain, 40)
      sent += 40
      assert.ok(sent <= 2000, 'the slow consumer was never closed')
    }
    await sendSettlements(live.chain, 10)
    await waitForHead(live.chain, live.explorer.url)
    const expected = (await settlementsOnChain(live.chain)).slice(from)
    assert.equal(expected.length, sent + 10)
    await fast.waitForSettlements(expected.length, 'fast')
    assert.deepEqual(fast.settlements('fast').map((m) => key(m.data)), expected.map(key))
    assert.equal(fast.closed, undefined)
    assert.match(await metric('live_websocket_connections'), / 1$/)

    ;(slow.socket as unknown as { _socket: Socket })._socket.resume()
    await waitFor('the slow client to read its close', () => slow.closed, 30_000)
    assert.equal(slow.closed!.code, 4008)
    assert.match(slow.closed!.reason, /^slow consumer/)
    const got = slow.settlements('s0').map((m) => key(m.data))
    assert.ok(got.length < expected.length)
    assert.deepEqual(got, expected.slice(0, got.length).map(key), 'a gapless prefix: resume from the last cursor loses nothing')
  })
})
