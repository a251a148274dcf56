/**
 * Replicas: explorers indexing one anvil chain each on their own (shared-nothing LMDB). A cursor is a
 * chain position, so one from replica A continues on replica B for REST pages, WebSocket `since` and SSE
 * `Last-Event-ID`, and a cursor past what a replica has indexed waits there instead of repeating. The
 * SDK given several base URLs fails REST calls over on network errors, timeouts and 5xx (never on 4xx),
 * prefers a replica whose `/ready` is 200, and when the replica under its WebSocket is killed (-9) in the
 * middle of traffic, resumes every subscription on another one: each settlement reaches each handler once.
 */
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { findFreePort } from '../../src/platform/net/find-free-port.js'
import type { Hex } from '../../src/wire/settlement.js'
import { ExplorerApiError, ExplorerClient, ExplorerNetworkError } from '../../src/sdk/index.js'
import { explorerEnv, key, pageThrough, settlementsOnChain, startExplorerProcess, startTestExplorer, tempDataDir, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain, startRpcProxy } from '../../src/devnet/testing/index.js'
import { connectWs, openSse, subscribe } from '../live/live-client.js'
import { recorder, startTraffic, watchOutages } from './live-fixture.js'

let chain: LocalChain
let a: TestExplorer
let b: TestExplorer

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 8)
  ;[a, b] = await Promise.all([startTestExplorer(chain), startTestExplorer(chain)])
  await Promise.all([waitForHead(chain, a.url), waitForHead(chain, b.url)])
})

after(async () => {
  await a?.stop()
  await b?.stop()
  await chain?.stop()
})

interface Stub {
  url: string
  /** Paths asked, in order. */
  paths: string[]
  stop(): Promise<void>
}

/** An HTTP server standing in for a replica that misbehaves in one way. */
async function startStub(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Stub> {
  const paths: string[] = []
  const server = createServer((req, res) => {
    paths.push(new URL(req.url!, 'http://stub').pathname)
    answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    stop: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

const problem = (res: ServerResponse, status: number, extra: object = {}) =>
  res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ type: 'about:blank', title: 'stub', status, detail: `stub ${status}`, ...extra }))

/** `/ready` caught up, everything else `status`. */
const readyThen = (status: number) => (req: IncomingMessage, res: ServerResponse) =>
  req.url === '/ready' ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}') : problem(res, status)

describe('cursors are chain positions, valid on every replica', () => {
  test('a REST cursor from replica A pages on through replica B, both orders', async () => {
    const onChain = await settlementsOnChain(chain)
    for (const order of ['asc', 'desc'] as const) {
      const first = (await a.get(`/events?order=${order}&limit=3`)).body
      const rest = await pageThrough(b.url, { order, limit: '2', cursor: first.nextCursor })
      const expected = order === 'asc' ? onChain : [...onChain].reverse()
      assert.deepEqual([...first.events, ...rest.events], expected)
    }
  })

  test('a WebSocket cursor from A resumes on B with `since`, and an SSE id from A with Last-Event-ID', async () => {
    const onChain = await settlementsOnChain(chain)
    const onA = await connectWs(a.url)
    await subscribe(onA, { id: 'all', since: (await a.get('/events?order=asc&limit=1')).body.nextCursor })
    const fromA = await onA.waitForSettlements(3, 'all')
    await onA.close()
    const onB = await connectWs(b.url)
    await subscribe(onB, { id: 'resumed', since: fromA[2]!.cursor })
    const replayed = await onB.waitForSettlements(onChain.length - 4, 'resumed')
    assert.deepEqual(replayed.map((m) => m.data), onChain.slice(4))
    await onB.close()

    // From after the second settlement: the second frame is the fourth settlement.
    const sseA = await openSse(a.url, `?since=${fromA[0]!.cursor}`)
    await waitFor('SSE frames on A', () => sseA.frames.filter((f) => f.event === 'settlement').length >= 2)
    sseA.close()
    const lastId = sseA.frames.filter((f) => f.event === 'settlement')[1]!.id!
    const sseB = await openSse(b.url, '', { 'last-event-id': lastId })
    await waitFor('SSE replay on B', () => sseB.settlements().length >= onChain.length - 4)
    assert.deepEqual(sseB.settlements(), onChain.slice(4))
    sseB.close()
  })

  test('a cursor past what a replica has indexed waits there: nothing at or before it is sent, nothing after it is missed', async () => {
    const proxy = await startRpcProxy(chain.rpcUrl)
    const behind = await startTestExplorer({ ...chain, rpcUrl: proxy.url })
    try {
      await waitForHead(chain, behind.url)
      proxy.down = true
      const mark = (await settlementsOnChain(chain)).length
      await sendSettlements(chain, 6)
      await waitForHead(chain, a.url)
      // A's cursor at the third new settlement: `behind` has none of the six yet.
      const cursor = (await a.get(`/events?order=asc&limit=${mark + 3}`)).body.nextCursor as string
      const ws = await connectWs(behind.url)
      await subscribe(ws, { id: 'ahead', since: cursor })
      const sse = await openSse(behind.url, '', { 'last-event-id': cursor })
      proxy.down = false
      await waitForHead(chain, behind.url)
      await sendSettlements(chain, 2)
      const expected = (await settlementsOnChain(chain)).slice(mark + 3)
      assert.equal(expected.length, 5)
      await ws.waitForSettlements(5, 'ahead')
      await waitFor('SSE to catch up', () => sse.settlements().length >= 5)
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.deepEqual(ws.settlements('ahead').map((m) => m.data), expected)
      assert.deepEqual(sse.settlements(), expected)
      await ws.close()
      sse.close()
    } finally {
      await behind.stop()
      await proxy.stop()
    }
  })
})

describe('ExplorerClient with several base URLs', () => {
  test('REST: network errors, 5xx and timeouts go to the next replica; 4xx and a lookup 404 do not', async () => {
    const deadUrl = `http://127.0.0.1:${await findFreePort()}`
    const resetting = await startStub((req, res) => (req.url === '/ready' ? readyThen(200)(req, res) : req.socket.destroy()))
    const failing = await startStub(readyThen(502))
    const refusing = await startStub(readyThen(400))
    const hanging = await startStub((req, res) => (req.url === '/ready' ? readyThen(200)(req, res) : undefined))
    try {
      const expected = (await a.get('/events?limit=5')).body
      for (const first of [resetting.url, failing.url, hanging.url]) {
        const client = new ExplorerClient({ baseUrls: [first, a.url], timeout: 1_000 })
        assert.deepEqual(await client.getEvents({ limit: 5 }), expected)
        assert.equal(client.activeBaseUrl, a.url)
        // It stays there.
        assert.deepEqual(await client.getEvents({ limit: 5 }), expected)
      }
      assert.deepEqual(failing.paths.filter((p) => p === '/events'), ['/events'])

      const client = new ExplorerClient({ baseUrls: [refusing.url, a.url] })
      await assert.rejects(client.getEvents(), (error: unknown) => error instanceof ExplorerApiError && error.status === 400 && error.url.startsWith(refusing.url))
      assert.equal(client.activeBaseUrl, refusing.url)
      const onAB = new ExplorerClient({ baseUrls: [a.url, b.url] })
      assert.equal(await onAB.getEventByTxHash(`0x${'ab'.repeat(32)}`), null)
      await assert.rejects(onAB.getEvents({ limit: 500 }), (error: unknown) => error instanceof ExplorerApiError && error.status === 400 && error.url.startsWith(a.url))
      assert.equal(onAB.activeBaseUrl, a.url)

      const allDown = new ExplorerClient({ baseUrls: [failing.url, deadUrl] })
      await assert.rejects(allDown.getStats(), ExplorerNetworkError)
    } finally {
      await Promise.all([resetting.stop(), failing.stop(), refusing.stop(), hanging.stop()])
    }
  })

  test('the first choice prefers a replica whose /ready is 200 over one listed before it', async () => {
    const lagging = await startStub((req, res) =>
      req.url === '/ready' ? res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"syncing","lag":40}') : problem(res, 500),
    )
    try {
      const client = new ExplorerClient({ baseUrls: [lagging.url, b.url] })
      assert.equal((await client.getStats()).totalSettlements, (await b.get('/stats')).body.totalSettlements)
      assert.equal(client.activeBaseUrl, b.url)
      assert.deepEqual(lagging.paths, ['/ready'])
    } finally {
      await lagging.stop()
    }
  })

  test('connect() tries each replica before it rejects', async () => {
    const client = new ExplorerClient({ baseUrls: [`http://127.0.0.1:${await findFreePort()}`, a.url] })
    await client.connect()
    assert.equal(client.activeBaseUrl, a.url)
    await client.disconnect()
    const none = new ExplorerClient({ baseUrls: [`http://127.0.0.1:${await findFreePort()}`, `http://127.0.0.1:${await findFreePort()}`] })
    await assert.rejects(none.connect(), /could not open/)
  })

  test('kill -9 of the replica under the live feed, mid-traffic: every handler sees every settlement once, from the other replica', async () => {
    const ports = [await findFreePort(), await findFreePort()]
    const urls = ports.map((port) => `http://127.0.0.1:${port}`)
    const children: ChildProcess[] = []
    try {
      for (const [i, port] of ports.entries()) {
        children.push(await startExplorerProcess(explorerEnv(chain, { DATA_DIR: tempDataDir(), EXPLORER_PORT: String(port) }), urls[i]!))
      }
      await Promise.all(urls.map((url) => waitForHead(chain, url)))
      const errors: Error[] = []
      const client = new ExplorerClient({ baseUrls: urls, reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, onError: (error) => errors.push(error) })
      const { all, verify } = await watchOutages(chain, client, errors)
      assert.equal(client.activeBaseUrl, urls[0])
      const byRecipient = recorder()
      const recipient = chain.deployment.recipients[1]!.toLowerCase() as Hex
      const mark = await settlementsOnChain(chain)
      await client.onSettlement({ recipient }, byRecipient.handler).ready

      const traffic = startTraffic(chain, { acquirerEvery: 1_000 })
      await waitFor('settlements on the first replica', () => all.events.length >= 8)
      children[0]!.kill('SIGKILL')
      await once(children[0]!, 'exit')
      // Only the acquirer handler's head cursor can resume it: it has delivered nothing so far.
      traffic.options = { acquirerEvery: 1 }
      await waitFor('the client to move to the second replica', () => client.connected && client.activeBaseUrl === urls[1])
      await traffic.batches(2)
      // REST follows the live feed to the replica that answers.
      const page = await client.getEvents({ limit: 3 })
      assert.equal(page.events.length, 3)
      await traffic.stop()
      await waitForHead(chain, urls[1]!)
      const expectedByRecipient = (await settlementsOnChain(chain)).filter((e) => !mark.some((m) => key(m) === key(e)) && e.recipient === recipient)
      assert.ok(expectedByRecipient.length > 0)
      await waitFor('the recipient handler', () => byRecipient.events.length >= expectedByRecipient.length)
      await verify()
      assert.deepEqual(byRecipient.events, expectedByRecipient)
      assert.ok(all.events.length >= 16)
    } finally {
      for (const child of children) child.kill('SIGKILL')
    }
  })
})
