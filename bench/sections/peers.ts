/**
 * Peers: Ponder (bench/peers/ponder, its own runtime and lock file, installed on first use) beside the
 * explorer, on the same synthetic chain from the same fake JSON-RPC node, in the same run:
 * - ingest: each backfills the chain from scratch, one after the other (each gets the two cores);
 *   settlements/s from serving to caught up, and CPU seconds per settlement (noise-free companion);
 * - query: wrk on the latest 20 of a recipient, the same recipients for both (`/events?recipient=R&limit=20`
 *   and Ponder's `/settlements/R`), both answers checked equal first; closed loop req/s alternating the
 *   two servers, CPU µs per answer, then each at half its own capacity for p50/p99;
 * - RSS of each after the load, and mined block → client sees it (our SSE, Ponder's live query).
 * What Ponder does not do is said in the table, not measured around.
 */
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { syntheticRecipient } from '../../src/devnet/testing/index.js'
import { BENCH_CHAIN_ID, BENCH_DIR } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { fmt, ms, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { cpuSeconds, rssOfPid } from '../lib/proc.js'
import { requireWrk, runWrk, type WrkLoad, type WrkResult } from '../load/wrk.js'
import { ensurePonder, startPonder, type PonderPeer } from '../peers/ponder-peer.js'
import type { BenchContext, SectionResult } from './context.js'
import { BlockSightings, liveLatency, readSse, type LiveLatency } from './peers-live.js'
import { growChain, startExplorerChild, startRpc, type ExplorerChild, type RpcChild } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Both indexers poll the node for new blocks this often (Ponder's default is 1 s, the explorer's 200 ms). */
const POLL_MS = 100
const INGEST_DEADLINE_MS = 20 * 60_000

interface Side {
  name: string
  url: string
  pid: number
  /** The path of recipient R's latest 20. */
  page(recipient: string): string
}

export interface Ingest {
  /** From the start of indexing (`from`) to caught up, and the CPU seconds the indexer used meanwhile. */
  seconds: number
  cpu: number
  /** From spawning the process to caught up. */
  totalSeconds: number
}

/**
 * Waits until `indexed()` reaches `head`, asking every `pollMs`; times it from `from` (performance.now() and the
 * indexer's CPU seconds, `cpu()`, then).
 */
export async function timedCatchUp(what: string, cpu: () => number, head: number, indexed: () => Promise<number>, from: () => { at: number; cpu: number }, spawnedAt: number, pollMs = 50): Promise<Ingest> {
  for (;;) {
    const block = await indexed()
    if (block >= head) break
    if (performance.now() - spawnedAt > INGEST_DEADLINE_MS) throw new Error(`${what} indexed only through block ${block} of ${head} in ${INGEST_DEADLINE_MS / 60_000} min`)
    await sleep(pollMs)
  }
  const end = { at: performance.now(), cpu: cpu() }
  const start = from()
  return { seconds: (end.at - start.at) / 1000, cpu: end.cpu - start.cpu, totalSeconds: (end.at - spawnedAt) / 1000 }
}

/** The latest-20 pages of both sides carry the same settlements in the same order (else the comparison is void); answers how many. */
async function checkSameAnswer(ours: Side, theirs: Side, recipient: string): Promise<number> {
  const ids = async (side: Side) => {
    const response = await fetch(`${side.url}${side.page(recipient)}`)
    if (!response.ok) throw new Error(`${side.name} ${side.page(recipient)} answered ${response.status}`)
    const { events } = (await response.json()) as { events: { txHash: string; logIndex: number }[] }
    return events.map((e) => `${e.txHash}:${e.logIndex}`)
  }
  // Ponder's API may show its writes a moment after /status shows the block: ask again for a while.
  const deadline = performance.now() + 20_000
  for (;;) {
    const [a, b] = [await ids(ours), await ids(theirs)]
    if (a.join() === b.join()) return a.length
    if (performance.now() > deadline) throw new Error(`the two answers for ${recipient} differ:\nours   ${a.join(' ')}\nPonder ${b.join(' ')}`)
    await sleep(200)
  }
}

interface Measured extends WrkResult {
  cpuUs: number
}

async function closedRun(side: Side, target: WrkLoad['target'], durationMs: number): Promise<Measured> {
  const before = cpuSeconds(side.pid)
  const result = await runWrk({ url: side.url, target, durationMs })
  return { ...result, cpuUs: ((cpuSeconds(side.pid) - before) / Math.max(1, result.requests)) * 1e6 }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

interface QueryRow {
  workload: string
  sides: { name: string; bytes: number; reqs: number[]; cpuUs: number; errors: number; halfRate: number; half: WrkResult }[]
  load: string
}

async function queryWorkload(ctx: BenchContext, sides: Side[], workload: string, recipients: string[]): Promise<QueryRow> {
  const before = load1()
  const targetOf = (side: Side): WrkLoad['target'] => (recipients.length === 1 ? { path: side.page(recipients[0]!) } : { paths: recipients.map((r) => side.page(r)) })
  const durationMs = ctx.quick ? 1000 : 4000
  if (!ctx.quick) for (const side of sides) await runWrk({ url: side.url, target: targetOf(side), durationMs: 1000 })
  const runs = sides.map(() => [] as Measured[])
  for (let round = 0; round < (ctx.quick ? 1 : 3); round++) for (const [i, side] of sides.entries()) runs[i]!.push(await closedRun(side, targetOf(side), durationMs))
  const result: QueryRow['sides'] = []
  for (const [i, side] of sides.entries()) {
    const reqs = runs[i]!.map((r) => r.requestsPerSecond)
    const halfRate = Math.max(5, Math.round(median(reqs) / 2))
    const half = await runWrk({ url: side.url, target: targetOf(side), durationMs: ctx.quick ? 1000 : 5000, rate: halfRate })
    result.push({
      name: side.name,
      bytes: median(runs[i]!.map((r) => r.bytesPerResponse)),
      reqs,
      cpuUs: median(runs[i]!.map((r) => r.cpuUs)),
      errors: runs[i]!.reduce((n, r) => n + r.errors, 0) + half.errors,
      halfRate,
      half,
    })
  }
  return { workload, sides: result, load: `${before} → ${load1()}` }
}

interface LiveRun {
  rate: number
  seconds: number
  ours: LiveLatency
  ponder: LiveLatency
}

/** Grows the chain at `rate` blocks/s for `seconds` with one SSE client on each side. */
async function measureLive(ctx: BenchContext, rpc: RpcChild, explorer: ExplorerChild, ponder: PonderPeer, rate: number, seconds: number): Promise<LiveRun> {
  const ours = new BlockSightings()
  const theirs = new BlockSightings()
  const ourStream = await readSse(`${explorer.ready.url}/events/stream`, (data) => {
    const block = /"blockNumber":(\d+)/.exec(data)
    if (block) ours.one(Number(block[1]))
  })
  const sql = encodeURIComponent(JSON.stringify({ json: { sql: 'select block_number from settlement order by block_number desc limit 1', params: [] } }))
  const ponderStream = await readSse(`${ponder.url}/sql/live?sql=${sql}`, (data) => {
    const { rows } = JSON.parse(data) as { rows: (Record<string, unknown> | unknown[])[] }
    const first = rows[0]
    const value = Array.isArray(first) ? first[0] : first ? Object.values(first)[0] : undefined
    if (value !== undefined) theirs.through(Number(value))
  })
  try {
    await sleep(500)
    const growth = { ...(await growChain(rpc, rate)), perSecond: rate }
    await sleep(seconds * 1000)
    const { head } = await growChain(rpc, 0)
    // Both have until 5 s after the last block to show it; what they have not shown by then counts as unseen.
    const deadline = performance.now() + 5000
    const last = (() => {
      for (let b = head; b > growth.head; b--) if (ctx.chain.settlementsIn(b) > 0) return b
      return head
    })()
    while (performance.now() < deadline && (!ours.seen.has(last) || !theirs.seen.has(last))) await sleep(50)
    return { rate, seconds, ours: liveLatency(ctx.chain, growth, head, ours), ponder: liveLatency(ctx.chain, growth, head, theirs) }
  } finally {
    ourStream.close()
    ponderStream.close()
  }
}

/**
 * The explorer backfills the node's chain from scratch into `dataDir`, timed from listening to caught up.
 * `started` gets the child at once, so the caller stops it even when the backfill fails.
 */
export async function backfillExplorer(rpc: RpcChild, dataDir: string, started: (explorer: ExplorerChild) => void): Promise<{ explorer: ExplorerChild; ingest: Ingest; load: string }> {
  const before = load1()
  const spawnedAt = performance.now()
  const explorer = await startExplorerChild({ dataDir, rpcUrl: rpc.ready.url, queryWorkers: 1, pollIntervalMs: POLL_MS })
  started(explorer)
  const pid = explorer.process.pid!
  const listening = { at: performance.now(), cpu: cpuSeconds(pid) }
  const ingest = await timedCatchUp(
    'the explorer',
    () => cpuSeconds(pid),
    rpc.ready.head,
    async () => (await explorer.ask<{ status: { indexedBlock: number } }>({ type: 'status' })).status.indexedBlock,
    () => listening,
    spawnedAt,
  )
  return { explorer, ingest, load: `${before} → ${load1()}` }
}

export async function peers(ctx: BenchContext): Promise<SectionResult> {
  const wrk = requireWrk()
  const install = ensurePonder(ctx.log)
  const settlements = ctx.peerSettlements ?? (ctx.quick ? 5_000 : 100_000)
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const dataDir = join(BENCH_DIR, 'peers-explorer')
  const pglite = resolve(BENCH_DIR, 'peers-ponder-pglite') // absolute: Ponder runs in bench/peers/ponder
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(pglite, { recursive: true, force: true })
  let explorer: ExplorerChild | undefined
  let ponder: PonderPeer | undefined
  try {
    const { head, count } = rpc.ready
    ctx.log(`peers: the explorer backfills ${fmt(count)} settlements (blocks ${ctx.chain.shape.firstBlock}–${head})`)
    const backfilled = await backfillExplorer(rpc, dataDir, (e) => (explorer = e))
    const e = backfilled.explorer
    const oursIngest = backfilled.ingest
    const oursIngestLoad = backfilled.load

    ctx.log(`peers: Ponder ${install.ponder} (Node ${install.node}, PGlite) backfills the same ${fmt(count)} settlements`)
    const ponderLoad = load1()
    const ponderSpawned = performance.now()
    ponder = await startPonder({ rpcUrl: rpc.ready.url, chainId: BENCH_CHAIN_ID, contract: BENCH_CONTRACT, startBlock: ctx.chain.shape.firstBlock, pglite, pollingMs: POLL_MS, logFile: join(BENCH_DIR, 'peers-ponder.log') })
    const p = ponder
    const healthy = { at: performance.now(), cpu: cpuSeconds(p.process.pid!) }
    const ponderIngest = await timedCatchUp('Ponder', () => cpuSeconds(p.process.pid!), head, () => p.indexedBlock(), () => p.backfillStarted ?? healthy, ponderSpawned)
    const ponderIngestLoad = `${ponderLoad} → ${load1()}`
    if (!p.backfillStarted) ctx.log('peers: Ponder did not log "Started backfill indexing": its ingest is timed from /health')
    while (!(await fetch(`${p.url}/ready`).then((r) => r.ok, () => false))) await sleep(100)

    const sides: Side[] = [
      { name: 'explorer', url: e.ready.url, pid: e.process.pid!, page: (r) => `/events?recipient=${r}&limit=20` },
      { name: 'Ponder', url: p.url, pid: p.process.pid!, page: (r) => `/settlements/${r}` },
    ]
    const many = Array.from({ length: 1000 }, (_, i) => syntheticRecipient((i * 7919) % ctx.chain.shape.recipients))
    let rowsPerPage = 0
    for (const r of [syntheticRecipient(7), ...many.slice(0, 50)]) rowsPerPage += (await checkSameAnswer(sides[0]!, sides[1]!, r)) / 51
    if (rowsPerPage === 0) throw new Error('the checked pages are all empty: nothing was compared')
    const queries: QueryRow[] = []
    ctx.log('peers: wrk, the same page (recipient R, latest 20)')
    queries.push(await queryWorkload(ctx, sides, 'same page: latest 20 of recipient R', [syntheticRecipient(7)]))
    ctx.log('peers: wrk, the latest 20 of 1,000 recipients in turn')
    queries.push(await queryWorkload(ctx, sides, 'latest 20 of 1,000 recipients in turn', many))
    const memory = { ours: rssOfPid(e.process.pid!), ponder: rssOfPid(p.process.pid!) }

    const rate = 2
    const liveSeconds = ctx.quick ? 5 : 20
    ctx.log(`peers: mined → seen, the chain growing ${rate} blocks/s for ${liveSeconds} s`)
    const live = await measureLive(ctx, rpc, e, p, rate, liveSeconds)

    return report({ ctx, wrk, install, count, head, rowsPerPage, oursIngest, ponderIngest, ponderStart: p.startSeconds, loads: { ours: oursIngestLoad, ponder: ponderIngestLoad }, queries, memory, live })
  } finally {
    await explorer?.stop()
    await ponder?.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(pglite, { recursive: true, force: true })
  }
}

interface Report {
  ctx: BenchContext
  wrk: string
  install: ReturnType<typeof ensurePonder>
  count: number
  head: number
  rowsPerPage: number
  oursIngest: Ingest
  ponderIngest: Ingest
  ponderStart: number
  loads: { ours: string; ponder: string }
  queries: QueryRow[]
  memory: { ours: { rss: number; maxRss: number }; ponder: { rss: number; maxRss: number } }
  live: LiveRun
}

function report(r: Report): SectionResult {
  const mb = (bytes: number) => fmt(bytes / 1024 ** 2)
  const rate = (i: { seconds: number }) => r.count / i.seconds
  const cpuPer = (i: { cpu: number }) => (i.cpu / r.count) * 1e6
  const ingestRatio = rate(r.oursIngest) / rate(r.ponderIngest)
  const headline: Record<string, string> = {
    'peers: ingest settlements/s, explorer / Ponder (target ≥ 10×)': `${fmt(rate(r.oursIngest))} / ${fmt(rate(r.ponderIngest))} = **${fmt(ingestRatio, 1)}×**; CPU µs per settlement ${fmt(cpuPer(r.oursIngest), 1)} / ${fmt(cpuPer(r.ponderIngest), 1)}`,
  }
  for (const q of r.queries) {
    const [o, t] = q.sides as [QueryRow['sides'][0], QueryRow['sides'][0]]
    headline[`peers: ${q.workload}, req/s explorer / Ponder (target ≥ 10×)`] =
      `${fmt(median(o.reqs))} / ${fmt(median(t.reqs))} = **${fmt(median(o.reqs) / median(t.reqs), 1)}×**; CPU µs per answer ${fmt(o.cpuUs, 1)} / ${fmt(t.cpuUs, 1)}`
  }
  headline['peers: mined → client sees it, p50 / p99 (explorer SSE; Ponder live query)'] =
    `${ms(r.live.ours.latency.p50)} / ${ms(r.live.ours.latency.p99)} ms; ${ms(r.live.ponder.latency.p50)} / ${ms(r.live.ponder.latency.p99)} ms`

  const ingestTable = table(
    ['', 'settlements', 'indexing: from → caught up', 'seconds', 'settlements/s', 'CPU s (µs per settlement)', 'spawn → caught up', 'load'],
    [
      ['explorer (LMDB, fsync on)', fmt(r.count), 'listening', r.oursIngest.seconds.toFixed(2), fmt(rate(r.oursIngest)), `${r.oursIngest.cpu.toFixed(2)} (${fmt(cpuPer(r.oursIngest), 1)})`, `${r.oursIngest.totalSeconds.toFixed(1)} s`, r.loads.ours],
      [
        `Ponder ${r.install.ponder} (PGlite)`,
        fmt(r.count),
        'its log "Started backfill indexing"',
        r.ponderIngest.seconds.toFixed(1),
        fmt(rate(r.ponderIngest)),
        `${r.ponderIngest.cpu.toFixed(1)} (${fmt(cpuPer(r.ponderIngest), 1)})`,
        `${r.ponderIngest.totalSeconds.toFixed(1)} s (/health after ${r.ponderStart.toFixed(1)} s)`,
        r.loads.ponder,
      ],
      ['**ratio explorer / Ponder**', '', '', '', `**${fmt(ingestRatio, 1)}×**`, `CPU per settlement **${fmt(cpuPer(r.ponderIngest) / cpuPer(r.oursIngest), 1)}×** less`, '', ''],
    ],
  )
  const queryRows = r.queries.flatMap((q) => {
    const [o, t] = q.sides as [QueryRow['sides'][0], QueryRow['sides'][0]]
    const row = (s: QueryRow['sides'][0]) => [
      q.workload,
      s.name,
      fmt(s.bytes),
      `${fmt(median(s.reqs))} (${s.reqs.map((x) => fmt(x)).join(' / ')})`,
      fmt(s.cpuUs, 1),
      fmt(s.halfRate),
      `${ms(s.half.p50)} / ${ms(s.half.p99)}`,
      `${(s.half.lateShare * 100).toFixed(1)}%`,
      String(s.errors),
      q.load,
    ]
    return [row(o), row(t), [q.workload, '**ratio**', '', `**${fmt(median(o.reqs) / median(t.reqs), 1)}×**`, `${fmt(t.cpuUs / o.cpuUs, 1)}× less`, '', '', '', '', '']]
  })
  const queryTable = table(['workload', 'server', 'bytes', 'req/s median (rounds)', 'CPU µs per answer', 'half-load rate', 'half-load p50 / p99 ms', 'late sends', 'errors', 'load'], queryRows)
  const liveRow = (name: string, l: LiveLatency) => [name, `${l.seenBlocks} of ${l.blocks}`, ms(l.latency.p50), ms(l.latency.p99), ms(l.latency.max)]
  const liveTable = table(
    ['client', 'blocks with settlements seen', 'p50 ms', 'p99 ms', 'max ms'],
    [liveRow('explorer: SSE `/events/stream` (every settlement)', r.live.ours), liveRow('Ponder: live query (`@ponder/client` protocol, `/sql/live`, newest settlement)', r.live.ponder)],
  )
  const capabilities = table(
    ['what the explorer does', 'Ponder 0.17 (as configured here)', 'so'],
    [
      ['exact `total` on every page, kept while indexing', 'the REST route written here has none; its GraphQL API (not enabled here) has `totalCount`, computed by a count per request', 'not measured: no counterpart on this route'],
      ['keyset cursor (`nextCursor`) on every filter', 'GraphQL `before`/`after` cursors over the orderBy columns (not enabled here); the route answers the latest 20 only', 'only the first page is compared'],
      ['live: resume from a cursor with every settlement in between (`Last-Event-ID`, `since`)', 'a live query re-sends its whole result when a table changes; no event ids, no resume: a client that reconnects gets the current result, not what happened meanwhile', 'cannot: not measured'],
      ['live: one event per settlement', 'one result per change of the query result (here: the newest settlement)', 'latency compared per block'],
    ],
  )
  const markdown = [
    `Ponder ${r.install.ponder} (the npm registry's latest) with its default embedded database PGlite, on Node ${r.install.node} from the npm package \`node\`, in bench/peers/ponder/ ` +
      `(own package.json and lock file; the product stays on Node 20 and never depends on it). Setup: ${r.install.setupSeconds === undefined ? 'installed before this run (first use runs `npm ci` there: 52 s on this machine)' : `\`npm ci\` in this run: ${r.install.setupSeconds.toFixed(0)} s`}. ` +
      `Data: the synthetic chain's first ${fmt(r.count)} settlements (blocks ${r.ctx.chain.shape.firstBlock}–${r.head}; \`--peer-settlements=N\` for more) from the fake JSON-RPC node (bench/rpc, 10k-result eth_getLogs cap), ` +
      `indexed from scratch by each, one after the other. Both poll the node every ${POLL_MS} ms. Ponder: one \`settlement\` table indexed by (recipient, block, log index), \`GET /settlements/:recipient\` = the latest 20 ` +
      '(Hono + Drizzle, as Ponder\'s docs write API routes); each indexer runs alone while it backfills. Both answers for 51 recipients are checked equal (same settlements, same order) before wrk runs; ' +
      `they hold ${fmt(r.rowsPerPage, 1)} settlements per page on average (the chain's 5,000 recipients hold one settlement in 5,000 each).`,
    '#### Ingest',
    ingestTable,
    `#### Query (wrk, \`${r.wrk}\`, one thread, 32 connections closed loop, ${r.ctx.quick ? '1 s, one round' : '4 s × 3 rounds alternating the servers after a 1 s warm-up each'}; half load: each at half its own median, 64 connections, ${r.ctx.quick ? 1 : 5} s)`,
    queryTable,
    `RSS after the query load: explorer ${mb(r.memory.ours.rss)} MB (peak ${mb(r.memory.ours.maxRss)} MB), Ponder ${mb(r.memory.ponder.rss)} MB (peak ${mb(r.memory.ponder.maxRss)} MB).`,
    `#### Mined block → client sees it (the node grows ${r.live.rate} blocks/s for ${r.live.seconds} s; both indexers poll every ${POLL_MS} ms, so about ${POLL_MS / 2} ms of either figure is the poll)`,
    liveTable,
    '#### What Ponder does not do here (not measured around)',
    capabilities,
  ].join('\n\n')
  return { markdown, headline }
}
