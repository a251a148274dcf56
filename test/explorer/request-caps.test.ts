/**
 * Issue 38 item 4, over real sockets against a real explorer that keeps indexing: 200 slow exports from
 * 50 client addresses (127.0.0.2 … 127.0.0.51, all loopback) and 1,000 `/events` queries of two field
 * filters, all at once. The refused ones get the documented answers (an export over its address's cap
 * 429, over the server's 503, a query past the full pool 503, each a problem body with Retry-After),
 * the admitted exports are cut off at EXPORT_MAX_SECONDS and free their slots, a plain client's requests
 * keep answering 200 within a generous bound, nothing answers 500, and the process's memory and the
 * LMDB data file stay bounded while blocks are committed under the slow readers (a read transaction
 * held by an export for its whole life would keep LMDB from reusing the pages each commit frees). The
 * flood runs in a worker thread (request-flood.ts), so that the explorer's event loop is not also the
 * one that sends and reads 1,200 requests.
 */
import assert from 'node:assert/strict'
import { statSync, readFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { Worker } from 'node:worker_threads'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Hex } from '../../src/wire/settlement.js'
import { waitFor, ScriptedChain, type ScriptedSettlement, startScriptedExplorer, type ScriptedExplorer } from '../../src/devnet/testing/index.js'
import { openApiChecker, type OpenApiChecker } from '../openapi/openapi-checker.js'
import { get as getAt, LAST_CHUNK, slowExport as slowExportAt, type Answer } from './request-clients.js'
import type { FloodResult } from './request-flood.js'

const CONTRACT = '0x5e771e0000000000000000000000000000000038' as Hex
const address = (prefix: number, i: number) => `0x${prefix.toString(16)}${i.toString(16).padStart(38, '0')}` as Hex
const TOKENS = [address(0x70, 1), address(0x70, 2)]
const RECIPIENTS = [0, 1, 2].map((i) => address(0x4e, i))
const ROWS = 24_000
const PER_BLOCK = 100
const LIMITS = { EXPORT_MAX_CONCURRENT: '20', EXPORT_MAX_PER_ADDRESS: '2', EXPORT_MAX_SECONDS: '4', EVENTS_MAX_WALK: '4000', QUERY_MAX_QUEUE: '32', QUERY_WORKERS: '1' }

let references = 0
function settlement(i: number): ScriptedSettlement {
  return {
    token: TOKENS[i % 2]!,
    payer: address(0x9a, i % 5000),
    recipient: RECIPIENTS[i % 3]!,
    amount: BigInt(1_000_000 + i),
    fee: 2_500_000n,
    reference: `0x${(++references).toString(16).padStart(32, '0')}${'0'.repeat(32)}`,
    domainSeparator: `0x${'d5'.repeat(32)}`,
  }
}

const chain = new ScriptedChain({ contract: CONTRACT })
let running: ScriptedExplorer
let url: URL
let dataFile: string
let openApi: OpenApiChecker

before(async () => {
  for (let b = 0; b < ROWS / PER_BLOCK; b++) chain.mine(Array.from({ length: PER_BLOCK }, (_, i) => settlement(b * PER_BLOCK + i)))
  running = await startScriptedExplorer(chain, LIMITS)
  url = new URL(running.explorer.url)
  // lmdb-js keeps the environment's directory on the root database; its typings omit it.
  dataFile = join((running.explorer.store.env as unknown as { path: string }).path, 'data.mdb')
  openApi = await openApiChecker((await (await fetch(`${running.explorer.url}/openapi.json`)).json()) as Record<string, any>)
  await waitFor('the explorer to index the chain', async () => (await fetch(`${running.explorer.url}/`).then((r) => r.json() as Promise<{ indexedHead: { blockNumber: number } | null }>)).indexedHead?.blockNumber === chain.head.blockNumber, 60_000)
})

after(async () => {
  await running?.stop()
})

const get = (path: string, agent?: Agent) => getAt(url, path, agent)
const slowExport = (localAddress: string, path: string, at = url) => slowExportAt(at, localAddress, path)

/** Runs the flood in a worker thread (request-flood.ts); resolves with what its clients got. */
function flood(queries: string[], exports: { localAddress: string; path: string }[], drainAfterMs: number): Promise<FloodResult> {
  // A worker does not inherit tsx's loader under Node 20: it registers it first (as server-threads.ts does).
  const entry = new URL('./request-flood.ts', import.meta.url).href
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}) })`
  const worker = new Worker(boot, { eval: true, workerData: { url: url.href, queries, exports, drainAfterMs } })
  let timer: NodeJS.Timeout | undefined
  return new Promise<FloodResult>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the flood did not end within 90 s')), 90_000)
    worker.once('message', (result: FloodResult) => resolve(result))
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the flood's thread exited (${code}) before it reported`)))
  }).finally(() => {
    clearTimeout(timer)
    void worker.terminate()
  })
}

const isProblemWithRetry = (a: Pick<Answer, 'status' | 'headers' | 'body'>, status: number) => {
  if (a.status !== status || Number(a.headers['retry-after']) < 1 || !a.headers['content-type']?.startsWith('application/problem+json')) return false
  const body = JSON.parse(a.body) as { status: number; title: string; detail: string }
  return body.status === status && body.detail.length > 0
}

/** The head of a raw response: status code, headers (lowercased names) and the body bytes that came with it. */
function parseHead(raw: Buffer): Answer {
  const text = raw.toString('latin1')
  const end = text.indexOf('\r\n\r\n')
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4), ms: 0 }
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${running.explorer.url}/metrics`)).text()
  return Number(text.split('\n').find((l) => l.startsWith(`explorer_${name} `))?.split(' ')[1] ?? 0)
}

/** An answer as the OpenAPI checker takes it. */
const documented = (a: Answer) => ({ status: a.status, headers: new Headers(a.headers), body: JSON.parse(a.body) as unknown })

function anonymousRss(): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('RssAnon:'))!
  return Number(line.split(/\s+/)[1]) * 1024
}

test('under 200 slow exports and 1,000 two-filter queries at once, refusals are documented, a plain client is served, memory and the data file stay bounded', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const quiet = await get('/events?limit=5', agent)
  assert.equal(quiet.status, 200)
  const fileBefore = statSync(dataFile).size
  const rssBefore = anonymousRss()
  let rssPeak = rssBefore

  // Blocks keep coming under the readers: one small block every 10 ms.
  let mined = 0
  const miner = setInterval(() => {
    chain.mine([settlement(ROWS + mined++)])
  }, 10)
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, anonymousRss())), 100)
  const plain: Answer[] = []
  let flooding = true

  // The plain client is already connected (kept alive) and asks all along; the flood comes from a worker thread.
  const plainClient = (async () => {
    while (flooding) {
      plain.push(await get('/events?limit=5', agent), await get(`/events?token=${TOKENS[0]}&limit=3`, agent))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  try {
    // Four from each address in turn: the first addresses meet their own cap, the later ones the server's.
    const { queries: answers, exports } = await flood(
      Array.from({ length: 1000 }, (_, i) => `/events?token=${TOKENS[i % 2]}&recipient=${RECIPIENTS[i % 3]}&limit=${1 + (i % 100)}&fromBlock=${i % 11}`),
      Array.from({ length: 200 }, (_, i) => ({ localAddress: `127.0.0.${2 + Math.floor(i / 4)}`, path: `/events/export?format=ndjson&order=asc&fromBlock=${i % 7}` })),
      // Read slowly for 1 s past EXPORT_MAX_SECONDS, so that the admitted exports are still running when cut.
      5_000,
    )

    // Queries: answered (the total a lower bound past EVENTS_MAX_WALK, said so), or refused by the full pool.
    const answered = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status === 503)
    assert.equal(answered.length + refused.length, 1000, `other statuses: ${[...new Set(answers.map((a) => a.status))]}`)
    assert.ok(refused.length > 0, 'the pool queue is bounded: some queries are refused')
    assert.ok(answered.length >= 64, `${answered.length} answered: at least the pool's 32 in flight and 32 waiting`)
    for (const a of refused) {
      assert.ok(isProblemWithRetry(a, 503), `${a.status} ${JSON.stringify(a.headers)} ${a.body}`)
      openApi.check('GET', '/events', documented(a))
    }
    for (const a of answered) {
      const page = JSON.parse(a.body) as { events: unknown[]; total: number; totalRelation?: string }
      assert.equal(page.totalRelation, 'gte')
      assert.ok(page.total >= page.events.length)
      openApi.check('GET', '/events', documented(a))
    }

    // Exports: 20 at most at once, 2 per address; the rest refused with their documented answers.
    const statuses = exports.map((e) => e.status)
    const admitted = exports.filter((e) => e.status === 200)
    assert.ok(admitted.length > 0 && admitted.length <= 20, `${admitted.length} exports admitted`)
    assert.equal(statuses.filter((s) => s !== 200 && s !== 429 && s !== 503).length, 0, `export statuses ${[...new Set(statuses)]}`)
    assert.ok(statuses.includes(429) && statuses.includes(503), `export statuses ${[...new Set(statuses)]}`)
    const refusals = exports.filter((e) => e.status !== 200).map((e) => parseHead(Buffer.from(e.end.head)))
    for (const r of refusals) {
      assert.ok(isProblemWithRetry(r, r.status), `${r.status} ${JSON.stringify(r.headers)} ${r.body}`)
      openApi.check('GET', '/events/export', documented(r))
    }

    // The admitted ones are cut off at EXPORT_MAX_SECONDS (4 s): the chunked body never ends.
    for (const { end } of admitted) {
      assert.ok(end.endedAfterMs > 4_000 && end.endedAfterMs < 30_000, `an export ended after ${end.endedAfterMs.toFixed(0)} ms`)
      assert.ok(!Buffer.from(end.tail).equals(LAST_CHUNK), 'a cut-off export does not look complete')
    }
    const expired = await metric('exports_total{outcome="expired"}')
    assert.equal(expired, admitted.length, 'every admitted export was cut off by its lifetime')
    // Their slots are free again.
    const again = slowExport('127.0.0.2', '/events/export?format=csv&toBlock=3')
    assert.equal(await again.status, 200)
    assert.ok(Buffer.from((await again.done).tail).equals(LAST_CHUNK), 'a small export ends complete')
  } finally {
    flooding = false
    clearInterval(miner)
    clearInterval(sampler)
    await plainClient
    agent.destroy()
  }

  // The plain client was served all along, within a generous bound, and nothing answered 500.
  assert.ok(plain.length >= 4, `${plain.length} plain requests`)
  for (const a of plain) assert.equal(a.status, 200)
  const slowest = Math.max(...plain.map((a) => a.ms))
  // Generous: the flood's clients run in this process too (another thread), on a machine shared with others.
  assert.ok(slowest < 5_000, `a plain request took ${slowest.toFixed(0)} ms`)
  await waitFor('the explorer to index the blocks mined during the flood', async () => {
    const root = (await (await fetch(`${running.explorer.url}/`)).json()) as { indexedHead: { blockNumber: number } }
    return root.indexedHead.blockNumber === chain.head.blockNumber
  })
  const metrics = await (await fetch(`${running.explorer.url}/metrics`)).text()
  assert.doesNotMatch(metrics, /http_requests_total\{[^}]*status="500"/)
  const fileGrowth = statSync(dataFile).size - fileBefore
  const rssGrowth = rssPeak - rssBefore
  const sorted = plain.map((a) => a.ms).sort((a, b) => a - b)
  console.log(`flood (load average ${loadavg()[0]!.toFixed(1)}): ${mined} blocks mined meanwhile; plain client ${plain.length} requests, median ${sorted[sorted.length >> 1]!.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms (quiet ${quiet.ms.toFixed(0)} ms); data file +${(fileGrowth / 1024 ** 2).toFixed(1)} MB, anonymous RSS +${(rssGrowth / 1024 ** 2).toFixed(0)} MB`)
  assert.ok(fileGrowth < 32 * 1024 ** 2, `the data file grew ${(fileGrowth / 1024 ** 2).toFixed(1)} MB`)
  assert.ok(rssGrowth < 512 * 1024 ** 2, `anonymous RSS grew ${(rssGrowth / 1024 ** 2).toFixed(0)} MB`)
})

test('with two server threads the export caps hold for both together', async () => {
  const threaded = await startScriptedExplorer(chain, { SERVER_THREADS: '2', EXPORT_MAX_CONCURRENT: '4', EXPORT_MAX_PER_ADDRESS: '3', EXPORT_MAX_SECONDS: '60' })
  try {
    const base = new URL(threaded.explorer.url)
    await waitFor('the threaded explorer to index the chain', async () => (await fetch(`${base.origin}/`).then((r) => r.json() as Promise<{ indexedHead: { blockNumber: number } | null }>)).indexedHead?.blockNumber === chain.head.blockNumber, 60_000)
    // Connections of their own from two addresses: the kernel spreads them over both threads' sockets.
    const exports = Array.from({ length: 8 }, (_, i) => slowExport(`127.0.0.${60 + (i % 2)}`, '/events/export?format=csv', base))
    const statuses = await Promise.all(exports.map((e) => e.status))
    assert.equal(statuses.filter((s) => s === 200).length, 4, `statuses ${statuses}`)
    assert.equal(statuses.filter((s) => s === 503 || s === 429).length, 4, `statuses ${statuses}`)
    const metrics = await waitFor('both threads to report', async () => {
      const text = await (await fetch(`${base.origin}/metrics`)).text()
      return /explorer_exports_open 4\b/.test(text) && text
    })
    assert.ok(metrics)
    for (const e of exports) e.close()
  } finally {
    await threaded.stop()
  }
})
