/**
 * A fleet behind a cache (issue 40): compose's `fleet` profile on this machine. The bench store is
 * snapshotted (`npm run explorer -- snapshot`), two explorer processes start from the snapshot on
 * directories of their own (SNAPSHOT_FROM) and follow the fake node, and nginx (Debian's package) runs the
 * repo's deploy/nginx/explorer-fleet.conf.template in front of them on 127.0.0.1. While the chain grows:
 * - a flash crowd (wrk, 128 connections, a browser's Accept-Encoding) on the head page and on a popular
 *   recipient's first pages, each reported as client req/s against origin req/s (the replicas'
 *   http_requests_total over the same run: what the cache let through), p99, and how stale an answer
 *   through the cache was: a sampler asks the page through nginx and each replica directly every 50 ms,
 *   and an answer is stale from the first moment a replica served a newer settlement than its newest one;
 * - a WebSocket subscriber on /stream and an SSE client on /events/stream through nginx, counted against
 *   the settlements the replicas indexed meanwhile (each once, none missing).
 * Then the bytes and CPU of compression (part 2): each workload straight at one replica, with no
 * Accept-Encoding, gzip and br, the replica's CPU seconds per answer from /proc.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import WebSocket from 'ws'
import { decodeCursor } from '../../src/explorer/store/index.js'
import { syntheticRecipient } from '../../src/devnet/testing/index.js'
import { BENCH_CHAIN_ID, BENCH_DIR, ensureBenchStore } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { fmt, ms, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { findNginx, FLEET_TEMPLATE, NGINX_INSTALL_HINT, startFleetNginx, writeFleetNginx } from '../lib/nginx-fleet.js'
import { cpuSeconds } from '../lib/proc.js'
import { requireWrk, runWrk, type WrkLoad, type WrkResult } from '../load/wrk.js'
import type { BenchContext, SectionResult } from './context.js'
import { randomPages } from './http-throughput.js'
import { growChain, startExplorerChild, startRpc, type ExplorerChild } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** The explorer's default HTTP_MAX_AGE_SECONDS: what a moving answer may be kept. */
const MAX_AGE_MS = 1000
const POPULAR_RECIPIENT = 7
const CROWD_CONNECTIONS = 128
const BLOCKS_PER_SECOND = 2
const BROWSER_ENCODING = 'gzip, deflate, br'

interface Page {
  events: { blockNumber: number; logIndex: number; txHash: string }[]
  nextCursor: string | null
}

const position = (e: { blockNumber: number; logIndex: number }) => e.blockNumber * 2 ** 32 + e.logIndex

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url}: ${response.status}`)
  return (await response.json()) as T
}

/** Every answer the replica counted in http_requests_total (all routes and statuses), and its 304s. */
async function originCounts(url: string): Promise<{ all: number; notModified: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  let all = 0
  let notModified = 0
  for (const m of text.matchAll(/^(\w*http_requests_total)(\{[^}]*\})? (\S+)$/gm)) {
    if (m[2]?.includes('thread=')) continue
    all += Number(m[3])
    if (m[2]?.includes('status="304"')) notModified += Number(m[3])
  }
  return { all, notModified }
}

/**
 * Samples `path` through the proxy and straight from each replica every `everyMs` until `done`: how long
 * an answer through the proxy showed a newest settlement older than one a replica had already served (0
 * when never behind), counted from the request's send (a lower bound: nginx answered after it) and from
 * the answer's arrival (an upper bound: the queue in front of a loaded nginx counts too); and how many
 * requests the sampler sent each replica itself (not the cache's).
 */
async function staleness(proxy: string, replicas: string[], path: string, everyMs: number, done: Promise<unknown>) {
  let finished = false
  void done.finally(() => (finished = true))
  /** Each newest position a replica served, when it was first seen. */
  const firstSeen: { at: number; position: number }[] = []
  const newest = (page: Page) => (page.events[0] ? position(page.events[0]) : -1)
  let fromSendMs = 0
  let fromArrivalMs = 0
  let samples = 0
  let direct = 0
  while (!finished) {
    const origin = await Promise.all(replicas.map((url) => getJson<Page>(`${url}${path}`).catch(() => undefined)))
    direct++
    const seenAt = performance.now()
    for (const page of origin) {
      if (page && newest(page) > (firstSeen.at(-1)?.position ?? -Infinity)) firstSeen.push({ at: seenAt, position: newest(page) })
    }
    const sentAt = performance.now()
    const cached = await getJson<Page>(`${proxy}${path}`).catch(() => undefined)
    const answeredAt = performance.now()
    if (cached) {
      samples++
      const newer = firstSeen.find((s) => s.position > newest(cached))
      if (newer) {
        fromSendMs = Math.max(fromSendMs, sentAt - newer.at)
        fromArrivalMs = Math.max(fromArrivalMs, answeredAt - newer.at)
      }
    }
    await sleep(everyMs)
  }
  return { fromSendMs, fromArrivalMs, samples, direct }
}

interface Crowd {
  name: string
  client: WrkResult
  originPerSecond: number
  notModifiedPerSecond: number
  stale: Awaited<ReturnType<typeof staleness>>
}

async function flashCrowd(name: string, proxy: string, replicas: ExplorerChild[], paths: string[], durationMs: number): Promise<Crowd> {
  const urls = replicas.map((r) => r.ready.url)
  const before = await Promise.all(urls.map(originCounts))
  const load: WrkLoad = { url: proxy, target: { paths }, durationMs, connections: CROWD_CONNECTIONS, headers: { 'accept-encoding': BROWSER_ENCODING } }
  const crowd = runWrk(load)
  const stale = staleness(proxy, urls, paths[0]!, 50, crowd)
  const client = await crowd
  const sampled = await stale
  const after = await Promise.all(urls.map(originCounts))
  const delta = (key: 'all' | 'notModified') => after.reduce((sum, a, i) => sum + a[key] - before[i]![key], 0)
  // What reached the origins through the cache: less the sampler's own requests and the first /metrics read.
  const throughCache = delta('all') - replicas.length * (sampled.direct + 1)
  return { name, client, originPerSecond: throughCache / client.seconds, notModifiedPerSecond: delta('notModified') / client.seconds, stale: sampled }
}

/** Every settlement after `cursor` that `url` has indexed, oldest first. */
async function settlementsAfter(url: string, cursor: string): Promise<string[]> {
  const ids: string[] = []
  let next: string | null = cursor
  while (next) {
    const page: Page = await getJson<Page>(`${url}/events?order=asc&limit=100&cursor=${next}`)
    ids.push(...page.events.map((e) => `${e.txHash}:${e.logIndex}`))
    next = page.events.length > 0 ? page.nextCursor : null
  }
  return ids
}

/** A WebSocket and an SSE client through the proxy while the chain grows; what each received against what the replicas indexed. */
async function liveThroughProxy(proxy: string, replica: ExplorerChild, rpc: Awaited<ReturnType<typeof startRpc>>, seconds: number) {
  const socket = new WebSocket(`${proxy.replace('http', 'ws')}/stream`)
  await once(socket, 'open')
  const received: string[] = []
  let start: string | undefined
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; cursor?: string; data?: { txHash: string; logIndex: number } }
    if (message.type === 'SUBSCRIBED') start = message.cursor
    if (message.type === 'SETTLEMENT') received.push(`${message.data!.txHash}:${message.data!.logIndex}`)
    if (message.type === 'REMOVED') received.push(`removed ${message.data!.txHash}:${message.data!.logIndex}`)
  })
  socket.send(JSON.stringify({ type: 'SUBSCRIBE', channel: 'settlements' }))
  for (let i = 0; i < 100 && !start; i++) await sleep(50)
  if (!start) throw new Error('no SUBSCRIBED through the proxy within 5 s')
  // SSE from the same position: frames counted as they arrive (proxy_buffering off, or none would until the end).
  const sse = new AbortController()
  const sseReceived: string[] = []
  let sseFirstMs = NaN
  const sseOpened = performance.now()
  const sseDone = (async () => {
    const response = await fetch(`${proxy}/events/stream?since=${start}`, { signal: sse.signal })
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (Number.isNaN(sseFirstMs)) sseFirstMs = performance.now() - sseOpened
      buffer += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = /^data: (.*)$/m.exec(frame)?.[1]
        if (/^event: settlement$/m.test(frame) && data) {
          const e = JSON.parse(data) as { txHash: string; logIndex: number }
          sseReceived.push(`${e.txHash}:${e.logIndex}`)
        }
      }
    }
  })().catch((error: Error) => {
    if (error.name !== 'AbortError') throw error
  })
  await growChain(rpc, BLOCKS_PER_SECOND)
  await sleep(seconds * 1000)
  const { head } = await growChain(rpc, 0)
  // The replica caught up with the chain's head, then a second and a half for the last messages to arrive.
  for (let i = 0; i < 300; i++) {
    const status = await getJson<{ lag?: number; chainHead?: number }>(`${replica.ready.url}/ready`).catch(() => ({}) as { lag?: number; chainHead?: number })
    if ((status.chainHead ?? 0) >= head && status.lag === 0) break
    await sleep(100)
  }
  await sleep(1500)
  socket.close()
  sse.abort()
  await sseDone
  const expected = await settlementsAfter(replica.ready.url, start)
  const count = (got: string[]) => {
    const set = new Set(got)
    return { received: got.length, missing: expected.filter((id) => !set.has(id)).length, repeated: got.length - set.size }
  }
  return { expected: expected.length, ws: count(received), sse: count(sseReceived), sseFirstMs, head }
}

interface Coding {
  workload: string
  encoding: string
  result: WrkResult
  cpuPerAnswerUs: number
}

/** Each workload straight at one replica without compression, gzip and br: bytes per answer and the replica's CPU per answer. */
async function compression(ctx: BenchContext, replica: ExplorerChild, workloads: { name: string; target: WrkLoad['target'] }[]): Promise<Coding[]> {
  const out: Coding[] = []
  const pid = replica.process.pid!
  for (const w of workloads) {
    for (const encoding of ['none', 'gzip', 'br']) {
      const headers: Record<string, string> = encoding === 'none' ? {} : { 'accept-encoding': encoding }
      await runWrk({ url: replica.ready.url, target: w.target, durationMs: 1000, headers })
      const cpu = cpuSeconds(pid)
      const result = await runWrk({ url: replica.ready.url, target: w.target, durationMs: ctx.quick ? 2_000 : 8_000, headers })
      out.push({ workload: w.name, encoding, result, cpuPerAnswerUs: ((cpuSeconds(pid) - cpu) / result.requests) * 1e6 })
    }
  }
  return out
}

export async function fleet(ctx: BenchContext): Promise<SectionResult> {
  const nginx = findNginx()
  if (!nginx) {
    ctx.log(`fleet: skipped: ${NGINX_INSTALL_HINT}`)
    return { markdown: `Skipped: ${NGINX_INSTALL_HINT}.`, headline: { 'fleet behind nginx': `skipped (${NGINX_INSTALL_HINT})` } }
  }
  requireWrk()
  const settlements = Math.max(...ctx.sizes)
  const store = await ensureBenchStore(ctx.chain, settlements, ctx.log)
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const dir = join(BENCH_DIR, `fleet-${settlements}`)
  rmSync(dir, { recursive: true, force: true })
  const loadBefore = load1()
  const replicas: ExplorerChild[] = []
  let proxy: Awaited<ReturnType<typeof startFleetNginx>> | undefined
  try {
    ctx.log(`fleet: a snapshot of the ${fmt(store.count)}-settlement store, then two replicas from it`)
    const snapshotDir = join(dir, 'snapshot')
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/explorer.ts', 'snapshot', snapshotDir], {
      env: { ...process.env, CHAIN_ID: String(BENCH_CHAIN_ID), SETTLEMENT_CONTRACT: BENCH_CONTRACT, RPC_URL: rpc.ready.url, DATA_DIR: store.path, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const [code] = (await once(child, 'exit')) as [number]
    if (code !== 0) throw new Error(`the snapshot command exited ${code}`)
    for (const n of [1, 2]) {
      replicas.push(await startExplorerChild({ dataDir: join(dir, `replica-${n}`), rpcUrl: rpc.ready.url, queryWorkers: 1, env: { SNAPSHOT_FROM: snapshotDir, TRUSTED_PROXIES: '127.0.0.1' } }))
    }
    for (const r of replicas) while ((await fetch(`${r.ready.url}/ready`).catch(() => undefined))?.status !== 200) await sleep(50)

    const port = await freePort()
    const prefix = join(dir, 'nginx')
    const main = writeFleetNginx(prefix, FLEET_TEMPLATE, {
      FLEET_LISTEN: `127.0.0.1:${port}`,
      FLEET_REPLICA_1: new URL(replicas[0]!.ready.url).host,
      FLEET_REPLICA_2: new URL(replicas[1]!.ready.url).host,
      FLEET_CACHE_DIR: resolve(prefix, 'cache'),
    })
    proxy = await startFleetNginx(nginx, prefix, main, port)
    const proxyUrl = `http://127.0.0.1:${port}`

    const head = '/events?limit=20'
    const recipient = syntheticRecipient(POPULAR_RECIPIENT)
    const recipientPages = [`/events?recipient=${recipient}&limit=20`]
    for (let i = 0; i < 4; i++) {
      const page = await getJson<Page>(`${replicas[0]!.ready.url}${recipientPages.at(-1)!}`)
      if (!page.nextCursor) break
      recipientPages.push(`/events?recipient=${recipient}&limit=20&cursor=${page.nextCursor}`)
    }
    const durationMs = ctx.quick ? 4_000 : 20_000
    await growChain(rpc, BLOCKS_PER_SECOND)
    ctx.log(`fleet: a flash crowd on ${head} through nginx (${CROWD_CONNECTIONS} connections, the chain growing ${BLOCKS_PER_SECOND} blocks/s)`)
    const crowds = [await flashCrowd(`head page \`${head}\``, proxyUrl, replicas, [head], durationMs)]
    ctx.log(`fleet: a flash crowd on a popular recipient's first ${recipientPages.length} pages`)
    crowds.push(await flashCrowd(`popular recipient's first ${recipientPages.length} pages`, proxyUrl, replicas, recipientPages, durationMs))
    await growChain(rpc, 0)

    ctx.log('fleet: a WebSocket and an SSE subscriber through nginx while the chain grows')
    const live = await liveThroughProxy(proxyUrl, replicas[0]!, rpc, ctx.quick ? 5 : 20)

    ctx.log('fleet: bytes and CPU per answer with and without compression, straight at one replica')
    const codings = await compression(ctx, replicas[0]!, [
      { name: 'head page', target: { path: head } },
      { name: "popular recipient's pages", target: { paths: recipientPages } },
      { name: 'a different page each request (not cached, sent as computed)', target: { pages: randomPages(ctx, store, 0, ctx.chain.shape.recipients) } },
    ])

    const worstStale = Math.max(...crowds.map((c) => c.stale.fromSendMs))
    const worstArrival = Math.max(...crowds.map((c) => c.stale.fromArrivalMs))
    const liveOk = live.ws.missing === 0 && live.ws.repeated === 0 && live.sse.missing === 0 && live.sse.repeated === 0
    const headline: Record<string, string> = {}
    for (const c of crowds) {
      headline[`fleet: flash crowd on the ${c.name} through nginx: client / origin req/s`] = `${fmt(c.client.requestsPerSecond)} / ${fmt(c.originPerSecond)} (${fmt(c.client.requestsPerSecond / Math.max(c.originPerSecond, 1))}×), p99 ${ms(c.client.p99)} ms`
    }
    // nginx keeps time in whole seconds: an answer fetched at 10.0 s with max-age=1 is fresh while its clock reads 10 or 11.
    headline[`fleet: stalest answer through nginx, from the request's send (max-age ${MAX_AGE_MS} ms; nginx's whole-second cache clock allows up to 1 s more)`] =
      `${fmt(worstStale)} ms (${fmt(worstArrival)} ms to its arrival) — ${worstStale <= MAX_AGE_MS + 50 ? 'within max-age' : worstStale <= MAX_AGE_MS + 1050 ? '**beyond max-age**, within max-age + 1 s (nginx\'s clock)' : '**beyond max-age + 1 s**'}`
    headline['fleet: WebSocket and SSE subscribers through nginx receive every settlement once'] =
      `${fmt(live.expected)} settlements: WebSocket ${fmt(live.ws.received)} (missing ${live.ws.missing}, repeated ${live.ws.repeated}), SSE ${fmt(live.sse.received)} (missing ${live.sse.missing}, repeated ${live.sse.repeated}) — ${verdict(liveOk)}`

    const markdown =
      `The \`fleet\` profile of compose.yaml on this machine: the bench store of ${fmt(store.count)} settlements snapshotted (\`npm run explorer -- snapshot\`), two explorer processes ` +
      '(QUERY_WORKERS=1, TRUSTED_PROXIES=127.0.0.1) started from the snapshot on directories of their own (`SNAPSHOT_FROM`), following the fake node, behind nginx ' +
      `(Debian's package, one worker) running \`${FLEET_TEMPLATE}\` with its ports and paths filled in. The explorers' own cache rules decide (HTTP_MAX_AGE_SECONDS=1, ` +
      `so a head page is kept 1 s, then revalidated with its ETag). Flash crowds: wrk, ${CROWD_CONNECTIONS} keep-alive connections, \`Accept-Encoding: ${BROWSER_ENCODING}\`, ` +
      `${durationMs / 1000} s, the chain growing ${BLOCKS_PER_SECOND} blocks/s meanwhile. Origin req/s: the replicas' \`http_requests_total\` over the run (revalidations answered 304 among them). ` +
      'Stalest answer: every 50 ms the first path is asked from each replica directly, then through nginx; an answer through nginx is stale from the first moment a replica served a newer ' +
      "settlement than its newest one, to the request's send (nginx answered later: a lower bound) and to the answer's arrival (an upper bound: a loaded nginx's queue counts too). " +
      "The sampler's own requests to the replicas are left out of the origin's count.\n\n" +
      table(
        ['flash crowd', 'client req/s', 'origin req/s (of which 304)', 'client / origin', 'p50 / p99 / max ms', 'bytes per answer', 'stalest answer: to send / to arrival (samples)'],
        crowds.map((c) => [
          c.name,
          fmt(c.client.requestsPerSecond),
          `${fmt(c.originPerSecond, 1)} (${fmt(c.notModifiedPerSecond, 1)})`,
          `${fmt(c.client.requestsPerSecond / Math.max(c.originPerSecond, 1))}×`,
          `${ms(c.client.p50)} / ${ms(c.client.p99)} / ${ms(c.client.max)}`,
          fmt(c.client.bytesPerResponse),
          `${fmt(c.stale.fromSendMs)} / ${fmt(c.stale.fromArrivalMs)} ms (${fmt(c.stale.samples)})`,
        ]),
      ) +
      '\n\nnginx keeps its cache\'s time in whole seconds: an answer fetched at 10.0 s with `max-age=1` stays fresh while its clock reads 10 or 11, so up to 2 s (max-age + 1 s); at 2 blocks/s the head page then shows a settlement up to ~1.9 s behind. The max of ~500 ms is the crowd\'s first requests of a key that nginx does not hold yet, waiting on its cache lock, which it checks every 500 ms.' +
      `\n\nLive feeds through nginx while the chain grew ${BLOCKS_PER_SECOND} blocks/s for ${ctx.quick ? 5 : 20} s (to block ${fmt(live.head)}): one WebSocket subscriber on \`/stream\` ` +
      '(unfiltered) and one SSE client on `/events/stream?since=` its subscription cursor, against every settlement a replica indexed after that cursor.\n\n' +
      table(
        ['client', 'settlements received', 'expected', 'missing', 'received twice'],
        [
          ['WebSocket `/stream`', fmt(live.ws.received), fmt(live.expected), live.ws.missing, live.ws.repeated],
          [`SSE \`/events/stream\` (first bytes after ${ms(live.sseFirstMs)} ms: unbuffered)`, fmt(live.sse.received), fmt(live.expected), live.sse.missing, live.sse.repeated],
        ],
      ) +
      '\n\nCompression (part 2): each workload straight at one replica (wrk, 32 connections, closed loop, the chain still), with `Accept-Encoding` absent, `gzip` and `br`; ' +
      "the replica's CPU seconds (all its threads, /proc) per answer. Pages the page cache holds are compressed once and sent from the copy; a page computed for one request goes out as it is.\n\n" +
      table(
        ['workload', 'Accept-Encoding', 'req/s', 'bytes per answer (headers included)', 'replica CPU per answer', 'p99 ms'],
        codings.map((c) => [c.workload, c.encoding, fmt(c.result.requestsPerSecond), fmt(c.result.bytesPerResponse), `${fmt(c.cpuPerAnswerUs, 1)} µs`, ms(c.result.p99)]),
      ) +
      `\n\nLoad before → after: ${loadBefore} → ${load1()}.`
    return { markdown, headline }
  } finally {
    await proxy?.stop()
    await Promise.all(replicas.map((r) => r.stop()))
    await rpc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
