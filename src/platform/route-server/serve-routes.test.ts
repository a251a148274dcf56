/**
 * The fastify server of the small services over a real socket: what the CA, the widget and the demo
 * store rely on besides their own routes — 405 with `Allow` (no body read), HEAD as GET or not, paths
 * resolved or as sent, a target that does not decode, a refusal before the body, a body over the cap,
 * a route that fails, and stop ending an open event stream.
 */
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../observability/index.js'
import { openEventStream } from '../http/index.js'
import { serveRoutes, withTrailingSlash, type ListeningServer, type Route } from './serve-routes.js'

const log = createLogger('error')
const text = (status: number, body: string) => ({ res }: { res: import('node:http').ServerResponse }) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(body)

const ROUTES: Route[] = [
  ...withTrailingSlash({ method: 'GET', url: '/items/:id(^i_[0-9]{3}$)', handle: ({ res, params }) => void res.writeHead(200).end(`item ${params[0]}`) }),
  { method: 'POST', url: '/items', maxBodyBytes: 8, handle: ({ res, body }) => void res.writeHead(201).end(`got ${body?.length ?? 'none'}`) },
  { method: 'POST', url: '/forms', maxBodyBytes: 8, tooLarge: text(400, 'form too large'), handle: text(200, 'form') },
  {
    method: 'POST',
    url: '/guarded',
    maxBodyBytes: 8,
    refusal: ({ req, res }) => (req.headers.authorization ? undefined : () => void res.writeHead(401).end('who are you')),
    handle: text(200, 'welcome'),
  },
  { method: 'GET', url: '/fails', handle: () => Promise.reject(new Error('boom')) },
  { method: 'GET', url: '/stream', handle: ({ res }) => void openEventStream(res).send('hello', { n: 1 }) },
]

/** One request on its own connection: status, headers, body, and whether the server closed it. */
function send(url: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    // The path as given (a URL would resolve `..` before sending it).
    const req = httpRequest({ hostname, port, path, method, headers, agent: false, timeout: 5_000 }, (res) => {
      let data = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (data += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }))
    })
    req.on('timeout', () => req.destroy(new Error('no answer in 5 s'))).on('error', reject)
    req.end(body)
  })
}

describe('resolved paths, HEAD as GET', () => {
  let server: ListeningServer
  before(async () => {
    server = await serveRoutes({ host: '127.0.0.1', port: 0, portSetting: 'TEST_PORT', routes: ROUTES, notFound: text(404, 'nothing here'), log })
  })
  after(() => server?.close())

  test('a parameter matching its pattern, with or without a trailing slash, after resolving `..`', async () => {
    assert.deepEqual([(await send(server.url, 'GET', '/items/i_123')).body, (await send(server.url, 'GET', '/items/i_123/')).body], ['item i_123', 'item i_123'])
    assert.equal((await send(server.url, 'GET', '/other/../items/i_007')).body, 'item i_007')
    assert.equal((await send(server.url, 'GET', '/items/x_123')).status, 404)
    assert.equal((await send(server.url, 'GET', '/items/%zz')).body, 'nothing here', 'a target that does not decode names no route')
  })

  test('HEAD answers as GET without a body; another method is 405 naming the path’s methods', async () => {
    const head = await send(server.url, 'HEAD', '/items/i_123')
    assert.deepEqual([head.status, head.body], [200, ''])
    const wrong = await send(server.url, 'DELETE', '/items/i_123')
    assert.deepEqual([wrong.status, wrong.headers.allow], [405, 'GET'])
    const big = await send(server.url, 'PUT', '/items', 'x'.repeat(100_000))
    assert.deepEqual([big.status, big.headers.allow], [405, 'POST'], 'a 405 is answered before any body is read')
  })

  test('bodies: read under the cap, 413 and the connection closed over it, or the route’s own answer', async () => {
    assert.equal((await send(server.url, 'POST', '/items', '1234', { 'content-type': 'text/plain' })).body, 'got 4')
    assert.equal((await send(server.url, 'POST', '/items')).body, 'got none')
    const over = await send(server.url, 'POST', '/items', '123456789', { 'content-type': 'application/octet-stream' })
    assert.deepEqual([over.status, over.headers.connection], [413, 'close'])
    assert.deepEqual(await send(server.url, 'POST', '/forms', 'x'.repeat(50), { 'content-type': 'application/x-www-form-urlencoded' }).then((r) => [r.status, r.body]), [400, 'form too large'])
    assert.equal((await send(server.url, 'POST', '/nowhere', 'x'.repeat(50_000), { 'content-type': 'text/plain' })).status, 404)
  })

  test('a refusal is answered before the body is read; a failing route is a 500, logged', async () => {
    assert.deepEqual(await send(server.url, 'POST', '/guarded', 'x'.repeat(50_000), { 'content-type': 'text/plain' }).then((r) => [r.status, r.body]), [401, 'who are you'])
    assert.equal((await send(server.url, 'POST', '/guarded', '{}', { authorization: 'yes', 'content-type': 'text/plain' })).body, 'welcome')
    assert.equal((await send(server.url, 'GET', '/fails')).status, 500)
  })
})

test('paths as sent, no HEAD: `..` is not resolved and HEAD is a 405', async () => {
  const server = await serveRoutes({ host: '127.0.0.1', port: 0, portSetting: 'TEST_PORT', routes: ROUTES, notFound: text(404, 'nothing here'), paths: 'as-sent', headAsGet: false, log })
  try {
    assert.equal((await send(server.url, 'GET', '/other/../items/i_007')).status, 404)
    const head = await send(server.url, 'HEAD', '/items/i_123')
    assert.deepEqual([head.status, head.headers.allow], [405, 'GET'])
  } finally {
    await server.close()
  }
})

test('a taken port is one line naming its setting; stop ends an open event stream', async () => {
  const server = await serveRoutes({ host: '127.0.0.1', port: 0, portSetting: 'TEST_PORT', routes: ROUTES, notFound: text(404, 'nothing here'), log })
  const port = new URL(server.url).port
  await assert.rejects(serveRoutes({ host: '127.0.0.1', port: Number(port), portSetting: 'TEST_PORT', routes: ROUTES, notFound: text(404, ''), log }), new RegExp(`TEST_PORT ${port} on 127.0.0.1 is not available`))
  const stream = await fetch(`${server.url}/stream`, { signal: AbortSignal.timeout(5_000) })
  assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  const reader = stream.body!.getReader()
  assert.match(new TextDecoder().decode((await reader.read()).value), /retry: /)
  await server.close()
  let ended = false
  while (!ended) ended = (await reader.read().catch(() => ({ done: true }))).done
})
