/**
 * REST timeouts really abort: against local TCP servers that never answer, or answer the headers and
 * then stall the body, the call rejects with ExplorerTimeoutError near the timeout and the connection is
 * torn down on the server's side.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { after, test } from 'node:test'
import { ExplorerClient, ExplorerTimeoutError } from '../../src/sdk/index.js'

const servers: Server[] = []

after(() => {
  for (const server of servers) server.close()
})

/** A server that reads requests and does `onRequest` with the socket; resolves with its URL and the socket closes seen. */
async function stallingServer(onRequest: (socket: Socket) => void): Promise<{ url: string; closed: Promise<void> }> {
  let markClosed!: () => void
  const closed = new Promise<void>((resolve) => (markClosed = resolve))
  const server = createServer((socket) => {
    socket.once('data', () => onRequest(socket))
    socket.on('close', markClosed)
    socket.on('error', () => {})
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed }
}

async function expectTimeout(call: () => Promise<unknown>, timeout: number): Promise<void> {
  const started = performance.now()
  await assert.rejects(call(), (error: unknown) => {
    assert.ok(error instanceof ExplorerTimeoutError)
    assert.equal(error.timeout, timeout)
    return true
  })
  const elapsed = performance.now() - started
  assert.ok(elapsed >= timeout - 5 && elapsed < timeout + 1000, `rejected after ${elapsed} ms`)
}

test('a server that never answers: the call times out and the connection is closed', async () => {
  const { url, closed } = await stallingServer(() => {})
  const client = new ExplorerClient({ baseUrl: url, timeout: 200 })
  await expectTimeout(() => client.getEvents({ limit: 5 }), 200)
  await closed
})

test('a server that stalls in the middle of the body: the timeout covers the body too', async () => {
  const { url, closed } = await stallingServer((socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"events":[')
  })
  const client = new ExplorerClient({ baseUrl: url, timeout: 5_000 })
  await expectTimeout(() => client.getStats({}, { timeout: 250 }), 250)
  await closed
})
