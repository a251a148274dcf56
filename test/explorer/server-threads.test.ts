/**
 * SERVER_THREADS: the explorer answering on one port from three threads (the main one and two more),
 * on a real chain with real payments. Every request below goes on a connection of its own, so the
 * kernel spreads them over the threads; the metrics say which thread answered how many.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Settlement } from '../../src/wire/settlement.js'
import { freshGet as freshGetUrl, settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, chainRpc, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'
import { connectWs, openSse, subscribe, waitForPublished, type SseClient, type WsClient } from '../live/live-client.js'

const THREADS = 3
/** Live connections one address may hold, on all threads together. */
const PER_ADDRESS = 16
let chain: LocalChain
let explorer: TestExplorer
let stopped = false

/** GET of `path` on a connection of its own, which the kernel may hand to any thread. */
const freshGet = (path: string) => freshGetUrl(`${explorer.url}${path}`)

const positions = (events: Pick<Settlement, 'blockNumber' | 'logIndex'>[]) => events.map((e) => `${e.blockNumber}:${e.logIndex}`)

/** Requests answered on any route but `/metrics`, whose own scrapes (these polls among them) would make up the count. */
const answeredIn = (samples: Map<string, number>) =>
  [...samples].filter(([name]) => name.startsWith('explorer_http_requests_total{') && !name.includes('route="/metrics"')).reduce((sum, [, n]) => sum + n, 0)

const scrape = async () => checkPrometheusText(await freshGet('/metrics'), 'explorer', { processGauges: false })

/** The metrics, once every thread's report covers at least `requests` answers in total. */
async function metricsCovering(requests: number): Promise<Map<string, number>> {
  return waitFor(`metrics covering ${requests} answers`, async () => {
    const samples = await scrape()
    return answeredIn(samples) >= requests ? samples : undefined
  })
}

/**
 * The metrics once they hold still: threads report every 250 ms, so a scrape right after other requests
 * (the set-up's polls) may lack some of them, and a count taken from it would later grow by them.
 */
async function settledMetrics(): Promise<Map<string, number>> {
  let last = await scrape()
  return waitFor('metrics that hold still', async () => {
    await new Promise((resolve) => setTimeout(resolve, 600))
    const now = await scrape()
    const still = answeredIn(now) === answeredIn(last)
    last = now
    return still ? now : undefined
  })
}

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 4)
  explorer = await startTestExplorer(chain, { SERVER_THREADS: String(THREADS), WS_MAX_CONNECTIONS_PER_IP: String(PER_ADDRESS) })
  await waitForHead(chain, explorer.url)
  await waitForPublished(chain, explorer.url)
})

after(async () => {
  if (!stopped) await explorer?.stop()
  await chain?.stop()
})

describe(`SERVER_THREADS=${THREADS}`, () => {
  test('every thread answers every route the same, and the metrics count them all', async () => {
    const onChain = await settlementsOnChain(chain)
    const before = await settledMetrics()
    const answers = await Promise.all(Array.from({ length: 36 }, () => freshGet('/events?limit=100&order=asc')))
    for (const answer of answers) {
      assert.equal(answer.status, 200)
      const page = JSON.parse(answer.body)
      assert.equal(page.total, onChain.length)
      assert.deepEqual(positions(page.events), positions(onChain))
    }
    const txHash = onChain[1]!.txHash
    for (const answer of await Promise.all(Array.from({ length: 12 }, () => freshGet(`/events/${txHash}`)))) {
      assert.equal(answer.status, 200)
      assert.equal(JSON.parse(answer.body).txHash, txHash)
    }
    for (const answer of await Promise.all(Array.from({ length: 12 }, () => freshGet('/ready')))) assert.equal(answer.status, 200, answer.body)
    for (const answer of await Promise.all(Array.from({ length: 6 }, () => freshGet('/events?limit=abc')))) {
      assert.equal(answer.status, 400)
      assert.equal(JSON.parse(answer.body).param, 'limit')
    }

    const counted = (samples: Map<string, number>, key: string) => samples.get(`explorer_http_requests_total{${key}}`) ?? 0
    const samples = await metricsCovering(answeredIn(before) + 66)
    assert.equal(counted(samples, 'route="/events",status="200"') - counted(before, 'route="/events",status="200"'), 36)
    assert.equal(counted(samples, 'route="/events",status="400"') - counted(before, 'route="/events",status="400"'), 6)
    assert.equal(counted(samples, 'route="/events/:txHash",status="200"') - counted(before, 'route="/events/:txHash",status="200"'), 12)
    // 72 connections over three listening sockets: each thread took some (all on one: about 3 × (1/3)^71).
    for (let thread = 1; thread < THREADS; thread++) assert.ok(samples.get(`explorer_server_thread_requests{thread="${thread}"}`)! > 0, `thread ${thread} answered`)
    const byThreads = [...samples].filter(([n]) => n.startsWith('explorer_server_thread_requests{')).reduce((s, [, n]) => s + n, 0)
    assert.ok(byThreads < counted(samples, 'route="/events",status="200"') + 66, 'the main thread answered some too')
  })

  test('live clients on every thread get each new settlement once, and no thread serves a page older than what they were told', async () => {
    const from = (await settlementsOnChain(chain)).length
    // The same page asked on every thread, twice, so that each thread's page cache holds it.
    for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 12 }, () => freshGet('/events?limit=100&order=asc')))
    const sockets: WsClient[] = await Promise.all(Array.from({ length: 9 }, () => connectWs(explorer.url)))
    const streams: SseClient[] = await Promise.all(Array.from({ length: 6 }, () => openSse(explorer.url)))
    try {
      for (const ws of sockets) assert.equal((await subscribe(ws, { id: 'all' })).type, 'SUBSCRIBED')
      await sendSettlements(chain, 5)
      const onChain = await settlementsOnChain(chain)
      const fresh = positions(onChain.slice(from))
      assert.equal(fresh.length, 5)
      for (const ws of sockets) {
        await ws.waitForSettlements(5, 'all')
        assert.deepEqual(positions(ws.settlements('all').map((m) => m.data)), fresh)
      }
      await waitFor('every SSE stream to carry the 5', () => streams.every((s) => s.settlements().length >= 5))
      for (const sse of streams) assert.deepEqual(positions(sse.settlements()), fresh)
      // Every live client has been told of the five: every thread's answer holds them.
      for (const answer of await Promise.all(Array.from({ length: 24 }, () => freshGet('/events?limit=100&order=asc')))) {
        const page = JSON.parse(answer.body)
        assert.equal(page.total, onChain.length)
        assert.deepEqual(positions(page.events), positions(onChain))
      }
      // Nothing arrived twice on any client.
      await new Promise((resolve) => setTimeout(resolve, 300))
      for (const ws of sockets) assert.equal(ws.settlements('all').length, 5)
      for (const sse of streams) assert.equal(sse.settlements().length, 5)
    } finally {
      await Promise.all(sockets.map((ws) => ws.close()))
      for (const sse of streams) sse.close()
    }
  })

  test('a reorg reaches the clients of every thread, REMOVED newest first, and no thread serves what it took back', async () => {
    const before = positions(await settlementsOnChain(chain))
    const sockets: WsClient[] = await Promise.all(Array.from({ length: 9 }, () => connectWs(explorer.url)))
    try {
      for (const ws of sockets) assert.equal((await subscribe(ws, { id: 'all' })).type, 'SUBSCRIBED')
      const snapshot = await chainRpc<string>(chain.rpcUrl, 'evm_snapshot')
      await sendSettlements(chain, 3)
      const doomed = (await settlementsOnChain(chain)).filter((e) => !before.includes(positions([e])[0]!))
      assert.equal(doomed.length, 3)
      for (const ws of sockets) await ws.waitForSettlements(3, 'all')
      // Every thread caches the page with the doomed settlements in it.
      for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 12 }, () => freshGet('/events?limit=100&order=asc')))

      assert.equal(await chainRpc<boolean>(chain.rpcUrl, 'evm_revert', [snapshot]), true)
      await sendSettlements(chain, 1)
      for (const ws of sockets) {
        const removed = await waitFor('three REMOVED', () => {
          const found = ws.messages.filter((m) => m.type === 'REMOVED' && m.subscription === 'all')
          return found.length >= 3 ? found : undefined
        })
        assert.deepEqual(positions(removed.map((m) => m.data)), positions([...doomed].reverse()))
      }
      const onChain = await settlementsOnChain(chain)
      await waitFor('every client to get the new branch', () => sockets.every((ws) => ws.settlements('all').length >= 4))
      for (const ws of sockets) assert.deepEqual(positions(ws.settlements('all').map((m) => m.data)).slice(3), positions(onChain).slice(before.length))
      for (const answer of await Promise.all(Array.from({ length: 24 }, () => freshGet('/events?limit=100&order=asc')))) {
        const page = JSON.parse(answer.body)
        assert.equal(page.total, onChain.length)
        assert.deepEqual(positions(page.events), positions(onChain))
      }
    } finally {
      await Promise.all(sockets.map((ws) => ws.close()))
    }
  })

  test('the per-address cap holds for all threads together: past it WebSocket and SSE get 429 on any thread', async () => {
    const held: WsClient[] = []
    const streams: SseClient[] = []
    try {
      // Connections left by the tests before are being dropped by their threads: wait for room for all.
      await waitFor(`room for ${PER_ADDRESS} connections`, async () => {
        const ws = await connectWs(explorer.url).catch(() => undefined)
        if (ws) held.push(ws)
        return held.length === PER_ADDRESS - 4
      })
      for (let i = 0; i < 4; i++) streams.push(await openSse(explorer.url))
      assert.deepEqual(streams.map((s) => s.status), [200, 200, 200, 200])
      // Spread over the threads by the kernel, the next ones are refused wherever they land.
      for (let i = 0; i < 6; i++) await assert.rejects(connectWs(explorer.url), /upgrade refused with 429/)
      for (let i = 0; i < 6; i++) {
        const refused = await openSse(explorer.url)
        assert.equal(refused.status, 429)
        refused.close()
      }
      await held.pop()!.close()
      held.push(await waitFor('a connection admitted once one closed', () => connectWs(explorer.url).catch(() => undefined)))
    } finally {
      await Promise.all(held.map((ws) => ws.close()))
      for (const sse of streams) sse.close()
    }
  })

  test('stop ends every thread: the port refuses new connections', async () => {
    await explorer.stop()
    stopped = true
    for (let i = 0; i < 6; i++) await assert.rejects(freshGet('/health'), /ECONNREFUSED/)
  })
})
