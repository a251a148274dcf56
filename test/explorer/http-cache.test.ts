/**
 * Issue 40 part 2, answers that shared caches can keep, checked through a real HTTP cache (undici's
 * RFC 9111 cache interceptor, as a shared cache) in front of the real explorer following a scripted chain:
 * a moving page is kept its max-age, then revalidated with a 304 that runs no query while nothing it
 * depends on changed (an empty block included); a new settlement or a reorg reaches the cache within the
 * max-age; a page bounded deep below the head is final (kept long, its validator unchanged by new
 * settlements, changed by a reorg); cached pages go out in brotli or gzip when asked, equal to the identity.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { Agent, cacheStores, interceptors, request, type Dispatcher } from 'undici'
import type { RunningExplorer } from '../../src/explorer/start-explorer.js'
import { readHead } from '../../src/explorer/store/meta.js'
import type { Hex } from '../../src/wire/settlement.js'
import { waitFor, ScriptedChain, type ScriptedSettlement, startScriptedExplorer, type ScriptedExplorer } from '../../src/devnet/testing/index.js'

const CONTRACT = '0x5e771e0000000000000000000000000000000003' as Hex
const RECIPIENT = '0x4e00000000000000000000000000000000000001' as Hex
// Long enough that two requests in a row fall within it on a loaded machine.
const MAX_AGE_S = 3
const FINAL_DEPTH = 4
let references = 0
const settlement = (): ScriptedSettlement => ({
  token: '0x7000000000000000000000000000000000000001',
  payer: '0x9a00000000000000000000000000000000000001',
  recipient: RECIPIENT,
  amount: 1_000_000n,
  fee: 10n,
  reference: `0x${(++references).toString(16).padStart(32, '0')}${'0'.repeat(32)}`,
  domainSeparator: `0x${'d5'.repeat(32)}`,
})

const chain = new ScriptedChain({ contract: CONTRACT })
let running: ScriptedExplorer
let explorer: RunningExplorer
let cache: Dispatcher

before(async () => {
  for (let b = 0; b < 12; b++) chain.mine([settlement(), settlement()])
  running = await startScriptedExplorer(chain, { HTTP_MAX_AGE_SECONDS: String(MAX_AGE_S), HTTP_FINAL_MAX_AGE_SECONDS: '600', HTTP_FINAL_DEPTH: String(FINAL_DEPTH) })
  explorer = running.explorer
  await indexed()
  cache = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore(), type: 'shared' }))
})
after(() => running?.stop())

async function indexed(): Promise<void> {
  const { blockNumber, blockHash } = chain.head
  await waitFor(`block ${blockNumber} indexed`, () => readHead(explorer.store)?.blockHash === blockHash && readHead(explorer.store)?.blockNumber === blockNumber)
}

/** Through the shared cache, as a client behind a CDN. */
async function viaCache(path: string): Promise<{ status: number; body: { events: { blockNumber: number }[]; total: number }; etag: string; cacheControl: string }> {
  const { statusCode, headers, body } = await request(`${explorer.url}${path}`, { dispatcher: cache })
  return { status: statusCode, body: (await body.json()) as never, etag: String(headers.etag), cacheControl: String(headers['cache-control']) }
}

/** The explorer's own count of what it did. */
async function counted(): Promise<{ answered: number; notModified: number; queries: number }> {
  const text = await (await fetch(`${explorer.url}/metrics`)).text()
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((n, m) => n + Number(m[1]), 0)
  return {
    answered: sum(/^explorer_http_requests_total\{route="\/events",status="\d+"\} (\d+)$/gm),
    notModified: sum(/^explorer_http_requests_total\{route="\/events",status="304"\} (\d+)$/gm),
    queries: sum(/^explorer_queries_total\{[^}]*\} (\d+)$/gm) + sum(/^explorer_page_cache_hits_total (\d+)$/gm),
  }
}

test('a moving page is kept its max-age, revalidated with a 304 that runs no query while nothing changed, and fresh once a settlement comes', async () => {
  const path = `/events?recipient=${RECIPIENT}&limit=5`
  const first = await viaCache(path)
  assert.equal(first.status, 200)
  assert.equal(first.cacheControl, `public, max-age=${MAX_AGE_S}`)
  const afterFirst = await counted()
  assert.deepEqual((await viaCache(path)).body, first.body)
  assert.equal((await counted()).answered, afterFirst.answered, 'within max-age the cache answered alone')

  // An empty block moves the head but not the answer.
  chain.mine([])
  await indexed()
  await sleep(MAX_AGE_S * 1000 + 100)
  const revalidated = await viaCache(path)
  assert.deepEqual(revalidated.body, first.body)
  const afterRevalidation = await counted()
  assert.equal(afterRevalidation.notModified, afterFirst.notModified + 1, 'the cache revalidated and got 304')
  assert.equal(afterRevalidation.queries, afterFirst.queries, 'the 304 ran no query')

  chain.mine([settlement()])
  await indexed()
  await sleep(MAX_AGE_S * 1000 + 100)
  const fresh = await viaCache(path)
  assert.equal(fresh.body.total, first.body.total + 1)
  assert.equal(fresh.body.events[0]!.blockNumber, chain.head.blockNumber)
  assert.notEqual(fresh.etag, first.etag)
})

test('a reorg reaches a moving page within its max-age; a page bounded deep below the head is final until a reorg', async () => {
  const finalPath = `/events?toBlock=${chain.head.blockNumber - FINAL_DEPTH - 1}&limit=50`
  const final = await viaCache(finalPath)
  assert.equal(final.cacheControl, 'public, max-age=600')

  chain.mine([settlement()])
  await indexed()
  const headPage = await viaCache('/events?limit=3')
  assert.equal(headPage.body.events[0]!.blockNumber, chain.head.blockNumber)
  const unchanged = await fetch(`${explorer.url}${finalPath}`, { headers: { 'if-none-match': final.etag } })
  assert.equal(unchanged.status, 304, 'new settlements leave a final page as it was')

  // The newest block and its settlement are replaced by an empty branch.
  const taken = chain.head.blockNumber
  chain.reorg(1)
  chain.mine([])
  chain.mine([])
  await indexed()
  await sleep(MAX_AGE_S * 1000 + 100)
  const afterReorg = await viaCache('/events?limit=3')
  assert.notDeepEqual(afterReorg.body, headPage.body)
  assert.ok(afterReorg.body.events.every((e) => e.blockNumber !== taken), 'the settlement taken back is gone from the cached page')
  const revalidated = await fetch(`${explorer.url}${finalPath}`, { headers: { 'if-none-match': final.etag } })
  assert.equal(revalidated.status, 200, 'a reorg changes even a final page\'s validator')
  assert.deepEqual(await revalidated.json(), final.body)
})

test('cached pages go out in brotli or gzip when asked, made once per page, equal to the identity', async () => {
  const path = `${explorer.url}/events?limit=20`
  const plain = await request(path)
  const identity = Buffer.from(await plain.body.arrayBuffer())
  await (await request(path)).body.arrayBuffer() // the second miss admits the page to the cache
  for (const [coding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
    const answer = await request(path, { headers: { 'accept-encoding': `${coding}, identity;q=0.5` } })
    assert.equal(answer.headers['content-encoding'], coding)
    assert.equal(answer.headers.vary, 'accept-encoding')
    const bytes = Buffer.from(await answer.body.arrayBuffer())
    assert.ok(bytes.length < identity.length / 2, `${coding}: ${bytes.length} of ${identity.length} bytes`)
    assert.deepEqual(decode(bytes), identity)
  }
  const refused = await request(path, { headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } })
  assert.equal(refused.headers['content-encoding'], undefined)
  assert.deepEqual(Buffer.from(await refused.body.arrayBuffer()), identity)
})
