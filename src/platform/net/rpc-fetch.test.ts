import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { rpcFetch } from './rpc-fetch.js'

let server: Server
let url: string
const seen: { method?: string; headers: IncomingMessage['headers']; body: string }[] = []

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() })
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        return res.end(gzipSync('{"jsonrpc":"2.0","id":1,"result":"0x10"}'))
      }
      if (req.url === '/error') {
        res.writeHead(503, 'Busy', { 'content-type': 'text/plain' })
        return res.end('try later')
      }
      if (req.url === '/stall') return // never answers
      res.writeHead(200, { 'content-type': 'application/json', 'x-node': 'test' })
      res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => {
  server.closeAllConnections()
  server.close()
})

test('a JSON-RPC POST: method, headers and body as given, the answer as a Response', async () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'
  const response = await rpcFetch(`${url}/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
  assert.equal(response.status, 200)
  assert.equal(response.ok, true)
  assert.equal(response.headers.get('x-node'), 'test')
  assert.deepEqual(await response.json(), { jsonrpc: '2.0', id: 1, result: '0x1' })
  const request = seen.at(-1)!
  assert.equal(request.method, 'POST')
  assert.equal(request.headers['content-type'], 'application/json')
  assert.equal(request.headers['content-length'], String(body.length))
  assert.equal(request.body, body)
})

test('a gzip answer is decoded; an error status keeps its body and status text', async () => {
  const gzipped = await rpcFetch(`${url}/gzip`, { method: 'POST', body: '{}' })
  assert.equal(seen.at(-1)!.headers['accept-encoding'], 'gzip')
  assert.equal(gzipped.headers.get('content-encoding'), null)
  assert.deepEqual(await gzipped.json(), { jsonrpc: '2.0', id: 1, result: '0x10' })
  const busy = await rpcFetch(`${url}/error`, { method: 'POST', body: '{}' })
  assert.equal(busy.status, 503)
  assert.equal(busy.statusText, 'Busy')
  assert.equal(await busy.text(), 'try later')
})

test('an abort signal ends a request that stalls, with its reason; a refused connection rejects with the cause', async () => {
  const controller = new AbortController()
  const pending = rpcFetch(`${url}/stall`, { method: 'POST', body: '{}', signal: controller.signal })
  setTimeout(() => controller.abort(new Error('too slow')), 50)
  await assert.rejects(pending, /too slow/)
  await assert.rejects(rpcFetch('http://127.0.0.1:1/', { method: 'POST', body: '{}' }), { code: 'ECONNREFUSED' })
  await assert.rejects(rpcFetch('ftp://127.0.0.1/', {}), /unsupported RPC URL scheme ftp:/)
})
