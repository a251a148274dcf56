/**
 * Bad input and limits on WebSocket `/stream`: every refused message gets an ERROR with a code and the
 * connection keeps working; the subscription and connection caps answer clearly; a frame over the
 * hard limit closes only that connection.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import WebSocket from 'ws'
import { waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { openSse, subscribe, useLiveExplorer, type WsClient } from './live-client.js'

const live = useLiveExplorer({ settlements: 2, env: { WS_MAX_SUBSCRIPTIONS: '3', WS_MAX_MESSAGE_BYTES: '1024', WS_MAX_CONNECTIONS: '4' } })
const client = () => live.client()

async function refusal(c: WsClient, send: () => void): Promise<{ code: string; message: string; id?: string }> {
  const from = c.messages.length
  send()
  const m = await c.next(() => true, from)
  assert.equal(m.type, 'ERROR', JSON.stringify(m))
  assert.equal(typeof m.error?.message, 'string')
  return { ...m.error!, ...(m.id === undefined ? {} : { id: m.id as string }) }
}

const address = '0x' + '1'.repeat(40)

describe('WebSocket /stream bad input', () => {
  const cases: [string, string, unknown][] = [
    ['not JSON', 'INVALID_JSON', '{"type": "SUBSCRIBE",'],
    ['a JSON array', 'INVALID_MESSAGE', []],
    ['a JSON string', 'INVALID_MESSAGE', 'hello'],
    ['no type', 'INVALID_MESSAGE', { channel: 'settlements' }],
    ['unknown type', 'UNKNOWN_TYPE', { type: 'PUBLISH' }],
    ['lower-case type', 'UNKNOWN_TYPE', { type: 'subscribe', channel: 'settlements' }],
    ['unknown channel', 'UNKNOWN_CHANNEL', { type: 'SUBSCRIBE', channel: 'blocks' }],
    ['missing channel', 'UNKNOWN_CHANNEL', { type: 'SUBSCRIBE' }],
    ['unknown key', 'INVALID_MESSAGE', { type: 'SUBSCRIBE', channel: 'settlements', filters: {} }],
    ['filter not an object', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: 'all' }],
    ['unknown filter key', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { amount: '1' } }],
    ['recipient not an address', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { recipient: 'alice' } }],
    ['recipient too short', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { recipient: address.slice(0, 40) } }],
    ['token a number', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { token: 12 } }],
    ['payer with a bad digit', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { payer: `0x${'g'.repeat(40)}` } }],
    ['orderReference of 32 bytes', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { orderReference: `0x${'a'.repeat(64)}` } }],
    ['acquirerId without 0x', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { acquirerId: 'a'.repeat(32) } }],
    ['address too short', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { address: address.slice(0, 40) } }],
    ['address not a string', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { address: null } }],
    ['address of 16 bytes beside a good token', 'INVALID_FILTER', { type: 'SUBSCRIBE', channel: 'settlements', filter: { token: address, address: `0x${'a'.repeat(32)}` } }],
    ['id a number', 'INVALID_ID', { type: 'SUBSCRIBE', channel: 'settlements', id: 7 }],
    ['id empty', 'INVALID_ID', { type: 'SUBSCRIBE', channel: 'settlements', id: '' }],
    ['since not a cursor', 'INVALID_CURSOR', { type: 'SUBSCRIBE', channel: 'settlements', since: 'abc' }],
    ['since a number', 'INVALID_CURSOR', { type: 'SUBSCRIBE', channel: 'settlements', since: 5 }],
    ['unknown subscription id', 'UNKNOWN_SUBSCRIPTION', { type: 'UNSUBSCRIBE', id: 'nope' }],
  ]

  test('every bad message gets an ERROR with its code, and the connection stays usable', async () => {
    const c = await client()
    for (const [what, code, message] of cases) {
      const error = await refusal(c, () => (typeof message === 'string' && what === 'not JSON' ? c.sendRaw(message) : c.send(message)))
      assert.equal(error.code, code, `${what}: ${JSON.stringify(error)}`)
    }
    assert.equal((await refusal(c, () => c.socket.send(Buffer.from('{}'), { binary: true }))).code, 'INVALID_MESSAGE')
    assert.equal((await refusal(c, () => c.send({ type: 'SUBSCRIBE', channel: 'settlements', filter: { recipient: 'x'.repeat(2000) } }))).code, 'MESSAGE_TOO_LARGE')
    const echoed = await refusal(c, () => c.send({ type: 'SUBSCRIBE', channel: 'settlements', id: 'mine', filter: { payer: 'x' } }))
    assert.equal(echoed.id, 'mine')
    assert.match(echoed.message, /payer/)

    assert.equal(c.closed, undefined)
    assert.equal((await subscribe(c, { id: 'ok' })).type, 'SUBSCRIBED')
    await sendSettlements(live.chain, 1)
    await c.waitForSettlements(1, 'ok')
  })

  test('a duplicate id or a duplicate id-less filter is refused', async () => {
    const c = await client()
    await subscribe(c, { id: 'a' })
    assert.equal((await subscribe(c, { id: 'a', filter: { token: address } })).error?.code, 'DUPLICATE_SUBSCRIPTION')
    await subscribe(c, { filter: { token: address } })
    assert.equal((await subscribe(c, { filter: { token: address.toUpperCase().replace('0X', '0x') } })).error?.code, 'DUPLICATE_SUBSCRIPTION')
    assert.equal((await subscribe(c, { filter: { address } })).type, 'SUBSCRIBED', 'another field with the same value is another filter')
    assert.equal((await subscribe(c, { filter: { address } })).error?.code, 'DUPLICATE_SUBSCRIPTION')
  })

  test('the subscription cap answers TOO_MANY_SUBSCRIPTIONS and keeps the others', async () => {
    const c = await client()
    for (const id of ['1', '2', '3']) assert.equal((await subscribe(c, { id })).type, 'SUBSCRIBED')
    const refused = await subscribe(c, { id: '4' })
    assert.equal(refused.error?.code, 'TOO_MANY_SUBSCRIPTIONS')
    assert.equal(refused.id, '4')
    c.send({ type: 'UNSUBSCRIBE', id: '1' })
    await c.next((m) => m.type === 'UNSUBSCRIBED')
    assert.equal((await subscribe(c, { id: '4' })).type, 'SUBSCRIBED')
    await sendSettlements(live.chain, 1)
    for (const id of ['2', '3', '4']) await c.waitForSettlements(1, id)
  })

  test('a frame over the hard limit closes that connection only; the server keeps serving', async () => {
    const c = await client()
    c.sendRaw('x'.repeat(70 * 1024))
    await new Promise((resolve) => c.socket.once('close', resolve))
    assert.notEqual(c.closed, undefined)
    const d = await client()
    assert.equal((await subscribe(d, {})).type, 'SUBSCRIBED')
  })

  test('connections over the cap are refused with 503 and a problem body, WebSocket and SSE alike', async () => {
    await live.closeClients()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const open = await Promise.all([client(), client(), client(), client()])
    assert.equal(open.length, 4)
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${live.explorer.url.replace('http', 'ws')}/stream`)
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.once('open', () => reject(new Error('a fifth connection was accepted')))
      ws.once('error', () => {})
    })
    assert.equal(status, 503)
    const sse = await openSse(live.explorer.url)
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(sse.status, 503)
    assert.equal(JSON.parse(sse.body).status, 503)
    await open[0]!.close()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const again = await client()
    assert.equal((await subscribe(again, {})).type, 'SUBSCRIBED')
  })
})
