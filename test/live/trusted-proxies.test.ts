/**
 * Per-address limits behind a reverse proxy (issue 38): with TRUSTED_PROXIES naming the proxy, two clients
 * it forwards are two addresses, each with its own WS_MAX_CONNECTIONS_PER_IP; a client that is not a
 * trusted proxy cannot escape its own limit by writing X-Forwarded-For itself. The explorer listens on
 * both stacks: requests from 127.0.0.1 play the trusted proxy (sending what a proxy sends), those from
 * ::1 an untrusted client.
 */
import assert from 'node:assert/strict'
import { request, type ClientRequest } from 'node:http'
import { after, describe, test } from 'node:test'
import WebSocket from 'ws'
import { useSeededExplorer } from './seeded-explorer.js'

const seeded = useSeededExplorer({ settlements: [], env: { EXPLORER_HOST: '::', TRUSTED_PROXIES: '127.0.0.1', WS_MAX_CONNECTIONS_PER_IP: '1' } })
const port = () => Number(seeded.explorer.url.split(':').at(-1))

const open: ClientRequest[] = []
after(() => open.forEach((req) => req.destroy()))

/** `GET /events/stream` from `host` with an X-Forwarded-For: the status, the stream held open when admitted. */
function openStream(host: '127.0.0.1' | '::1', forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: port(), path: '/events/stream', headers: { 'x-forwarded-for': forwardedFor }, agent: false }, (res) => {
      if (res.statusCode !== 200) res.resume()
      resolve(res.statusCode ?? 0)
    })
    open.push(req)
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')))
    req.on('error', reject)
    req.end()
  })
}

/** A WebSocket upgrade from 127.0.0.1 with an X-Forwarded-For: 'open' or the refusal's status. */
function upgrade(forwardedFor: string): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port()}/stream`, { headers: { 'x-forwarded-for': forwardedFor }, handshakeTimeout: 10_000 })
    socket.once('open', () => {
      resolve('open')
      socket.close()
    })
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    socket.once('error', reject)
  })
}

describe('TRUSTED_PROXIES on the explorer live feeds (WS_MAX_CONNECTIONS_PER_IP=1)', () => {
  test('two clients behind the trusted proxy each get their own bucket; each bucket still holds', async () => {
    assert.equal(await openStream('127.0.0.1', '203.0.113.1'), 200)
    assert.equal(await openStream('127.0.0.1', '203.0.113.2'), 200)
    // The proxy appends its peer; what the client wrote itself (left of it) does not make it another client.
    assert.equal(await openStream('127.0.0.1', '198.51.100.66, 203.0.113.1'), 429)
    assert.equal(await upgrade('203.0.113.2'), 429)
    assert.equal(await upgrade('203.0.113.3'), 'open')
  })

  test('an untrusted client writing X-Forwarded-For stays in its own bucket', async () => {
    assert.equal(await openStream('::1', '198.51.100.7'), 200)
    assert.equal(await openStream('::1', '198.51.100.8'), 429)
    assert.equal(await openStream('::1', '203.0.113.9'), 429)
  })
})
