/**
 * HTTP throughput and latency against the real explorer, measured with wrk (bench/load/wrk.ts). Each
 * workload is compared with a static page of its own byte size served by the same server: the two are
 * measured alternately, three rounds, and the ratio is the median of the three paired ratios, so that
 * drifting machine load (other engineers share these cores) moves both sides of a ratio alike. Then the
 * workload runs at a constant half of its median throughput for the latency target.
 *
 * The workloads of the query target run at every store size: the same page repeated (a hot page, what
 * a cache may answer) and a different page on every request (a random cursor, what no cache answers),
 * of one recipient and of any recipient. The other endpoints run at the first size.
 */
import { cpus } from 'node:os'
import type { EventsQuery } from '../../src/explorer/query/index.js'
import { encodeCursor } from '../../src/explorer/store/index.js'
import { syntheticRecipient, syntheticToken } from '../../src/devnet/testing/index.js'
import { ensureBenchStore, type BenchStore } from '../data/bench-store.js'
import { fmt, ms, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { CLOSED_CONNECTIONS, PACED_CONNECTIONS, requireWrk, runWrk, type RandomPages, type WrkLoad, type WrkResult } from '../load/wrk.js'
import { profileMarkdown } from '../profile/summarize-cpu-profile.js'
import type { BenchContext, SectionResult } from './context.js'
import { measureDispatch, type DispatchCost } from './query-dispatch.js'
import { queryString, sampleQueries, sampleSettlement } from './sample-queries.js'
import { memoryLine, profiled, rssOf, SERVER_THREADS, startExplorerChild, startRpc, type ExplorerChild } from './services.js'

interface Workload {
  name: string
  target: WrkLoad['target']
  /** Paths whose mean body size sets the static page's size. */
  samples: string[]
  /** The DESIGN.md query targets this workload answers for. */
  goal?: { ratio: number; moonshot: number; key: string }
  /** Unmeasured load before the rounds, when the workload reads what the ones before it left cold (default 1 s). */
  warmupMs?: number
}

type ClosedRun = WrkResult & { cpuUs: number; mainUs: number }

interface Measured {
  name: string
  size: number
  bytes: number
  rounds: { real: ClosedRun; ceiling: ClosedRun; load: number }[]
  real: number
  ceiling: number
  ratio: number
  half: WrkResult
  /** The static page at the same constant rate: what the machine adds to any answer's latency. */
  halfCeiling: WrkResult
  halfRate: number
  load: string
}

const SAME_PAGE_RECIPIENT = 7

/**
 * Random pages of some recipients: a cursor at a random position from a tenth into the chain (the bench
 * chain's recipients each hold one settlement in 5,000, so every such position has a full page before it).
 */
export function randomPages(ctx: BenchContext, store: BenchStore, firstRecipient: number, recipients: number): RandomPages {
  const first = ctx.chain.shape.firstBlock
  return { firstRecipient, recipients, fromBlock: Math.round(first + (store.head - first) / 10), toBlock: store.head, seed: ctx.chain.shape.seed }
}

/** Pages like the ones wrk asks for, to size the static page. */
function randomPagePaths(pages: RandomPages, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const recipient = syntheticRecipient(pages.firstRecipient + ((i * 7919) % pages.recipients))
    const block = pages.fromBlock + Math.floor(((i + 0.5) / count) * (pages.toBlock - pages.fromBlock))
    return `/events?recipient=${recipient}&limit=20&cursor=${encodeCursor(block, 2 ** 31 - 1)}`
  })
}

function queryWorkloads(ctx: BenchContext, store: BenchStore): Workload[] {
  const same = `/events?recipient=${syntheticRecipient(SAME_PAGE_RECIPIENT)}&limit=20`
  const onePayee = randomPages(ctx, store, SAME_PAGE_RECIPIENT, 1)
  const anyPayee = randomPages(ctx, store, 0, ctx.chain.shape.recipients)
  return [
    { name: 'same page: /events?recipient=R&limit=20', target: { path: same }, samples: [same], goal: { ratio: 0.5, moonshot: 0.8, key: 'same page' } },
    {
      name: 'different page each request: recipient R, random cursor',
      target: { pages: onePayee },
      samples: randomPagePaths(onePayee, 32),
      goal: { ratio: 0.25, moonshot: 0.4, key: 'different pages' },
    },
    {
      name: 'different page each request: any of 5,000 recipients, random cursor (reads spread over the whole store)',
      target: { pages: anyPayee },
      samples: randomPagePaths(anyPayee, 64),
      warmupMs: COLD_WARMUP_MS,
      goal: { ratio: 0.25, moonshot: 0.4, key: 'different pages, any recipient' },
    },
  ]
}

function otherWorkloads(ctx: BenchContext, store: BenchStore): Workload[] {
  const settlements = Array.from({ length: 64 }, (_, i) => sampleSettlement(ctx.chain, store.head, (i + 0.5) / 64))
  const txHashes = settlements.map((s) => `/events/${s.txHash}`)
  const orders = settlements.map((s) => `/events/order/${s.reference.slice(0, 34)}`)
  const sample = (name: string) => `/events${queryString(sampleQueries(ctx.chain, store.head).find((q) => q.name === name)!.query)}`
  const deep = sample('recipient, cursor at the middle')
  const intersection = sample('token + acquirerId (large intersection)')
  const amounts = `/events?token=${syntheticToken(1)}&minAmount=500000000&maxAmount=510000000`
  return [
    { name: '/events (unfiltered, 20 results)', target: { path: '/events' }, samples: ['/events'] },
    { name: '/events?recipient=&cursor= (deep page)', target: { path: deep }, samples: [deep] },
    { name: '/events/:txHash (64 in turn)', target: { paths: txHashes }, samples: txHashes, goal: lookupGoal('lookup by txHash') },
    { name: '/events/order/:orderReference (64 in turn)', target: { paths: orders }, samples: orders, goal: lookupGoal('lookup by order reference') },
    { name: '/events?token=&acquirerId= (token + acquirer intersection, in the pool)', target: { path: intersection }, samples: [intersection] },
    { name: '/events?token=&minAmount=&maxAmount= (token + amount range, 1 %)', target: { path: amounts }, samples: [amounts] },
    { name: '/stats', target: { path: '/stats' }, samples: ['/stats'] },
  ]
}

/** The lookup target: ≥ 0.6 of static (no moonshot: the same figure stands in) and ≤ 25 µs per answer (the projection table). */
const lookupGoal = (key: string) => ({ ratio: 0.6, moonshot: 0.6, key })

async function meanBodyBytes(url: string, paths: string[]): Promise<number> {
  let total = 0
  for (const path of paths) {
    const response = await fetch(`${url}${path}`)
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`)
    total += (await response.arrayBuffer()).byteLength
  }
  return Math.round(total / paths.length)
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

function checked(result: WrkResult, what: string): WrkResult {
  if (result.errors > 0) throw new Error(`${what}: ${result.errors} errors (non-2xx/3xx answers, timeouts or socket errors) under load`)
  return result
}

/**
 * A closed-loop run with the explorer's CPU time over it: server µs per answer, which the machine's
 * other load barely moves, all threads and the main (uWS) thread's share.
 */
async function closedRun(explorer: ExplorerChild, target: WrkLoad['target'], durationMs: number, what: string): Promise<ClosedRun> {
  const cpu = () => explorer.ask<{ cpu: NodeJS.CpuUsage; mainThreadSeconds: number }>({ type: 'cpu' })
  const before = await cpu()
  const result = checked(await runWrk({ url: explorer.ready.url, target, durationMs }), what)
  const after = await cpu()
  const cpuUs = (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / result.requests
  return { ...result, cpuUs, mainUs: ((after.mainThreadSeconds - before.mainThreadSeconds) * 1e6) / result.requests }
}

async function measureWorkload(ctx: BenchContext, explorer: ExplorerChild, size: number, w: Workload): Promise<Measured> {
  const url = explorer.ready.url
  const bytes = await meanBodyBytes(url, w.samples)
  const ceilingTarget = { path: `/bench/static/${bytes}` }
  const durationMs = ctx.quick ? 1000 : 4000
  const before = load1()
  // Unmeasured warm-up of both sides: a fresh server (JIT, page cache of the store) would otherwise flatter whichever runs second.
  if (!ctx.quick) for (const [target, durationMs] of [[ceilingTarget, 1000], [w.target, w.warmupMs ?? 1000]] as const) await runWrk({ url, target, durationMs })
  const rounds: Measured['rounds'] = []
  for (let r = 0; r < (ctx.quick ? 1 : 3); r++) {
    const ceiling = await closedRun(explorer, ceilingTarget, durationMs, 'static page')
    const real = await closedRun(explorer, w.target, durationMs, w.name)
    rounds.push({ real, ceiling, load: load1() })
  }
  const real = median(rounds.map((r) => r.real.requestsPerSecond))
  const halfRate = Math.max(100, Math.round(real / 2))
  const paced = { url, durationMs: ctx.quick ? 1000 : 5000, rate: halfRate }
  const half = checked(await runWrk({ ...paced, target: w.target }), `${w.name} at half load`)
  const halfCeiling = checked(await runWrk({ ...paced, target: ceilingTarget }), 'static page at the same rate')
  return {
    name: w.name,
    size,
    bytes,
    rounds,
    real,
    ceiling: median(rounds.map((r) => r.ceiling.requestsPerSecond)),
    ratio: median(rounds.map((r) => r.real.requestsPerSecond / r.ceiling.requestsPerSecond)),
    half,
    halfCeiling,
    halfRate,
    load: `${before} → ${load1()}`,
  }
}

export async function httpThroughput(ctx: BenchContext): Promise<SectionResult> {
  const wrk = requireWrk()
  const headline: Record<string, string> = {}
  const measured: Measured[] = []
  const dispatches = new Map<number, DispatchCost>()
  const profiles: string[] = []
  for (const [i, size] of ctx.sizes.entries()) {
    const store = await ensureBenchStore(ctx.chain, size, ctx.log)
    const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements: size })
    try {
      const explorer = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: 1 })
      try {
        const url = explorer.ready.url
        const workloads = [...queryWorkloads(ctx, store), ...(i === 0 ? otherWorkloads(ctx, store) : [])]
        for (const w of workloads) {
          ctx.log(`HTTP at ${fmt(store.count)} settlements: ${w.name}`)
          const m = await measureWorkload(ctx, explorer, store.count, w)
          measured.push(m)
          if (w.goal) goalHeadlines(headline, w.goal, m)
        }
        ctx.log(`query dispatch through the pool at ${fmt(store.count)} settlements`)
        const anyPayee = randomPages(ctx, store, 0, ctx.chain.shape.recipients)
        dispatches.set(store.count, await measureDispatch(store.path, randomPageQueries(anyPayee, ctx.quick ? 2000 : 20_000)))
        if (i === 0) {
          const memory = await rssOf(explorer)
          headline['explorer RSS after HTTP load'] = memoryLine(memory)
        }
        if (!ctx.quick && i === 0) {
          for (const w of queryWorkloads(ctx, store)) {
            const dir = `${ctx.profileDir}/http-${w.goal!.key.replace(/ /g, '-')}`
            ctx.log(`profiling ${w.name} under closed-loop load`)
            await profiled(explorer, dir, () => runWrk({ url, target: w.target, durationMs: 4000 }))
            profiles.push(
              `#### Where the time goes: ${w.name}, ${fmt(store.count)} settlements, closed loop (V8 CPU profile of the explorer main thread over the measured window)\n\n${profileMarkdown(dir)}`,
            )
          }
        }
      } finally {
        await explorer.stop()
      }
      /** The any-recipient workload again on an explorer configured by `env`, named `${name}, ${label}`. */
      const anyRecipientOn = async (env: Record<string, string>, label: string, withGoal: boolean) => {
        const explorer = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: 1, env })
        try {
          const w = queryWorkloads(ctx, store).find((q) => q.goal?.key === 'different pages, any recipient')!
          const goal = withGoal ? { ...w.goal!, key: `${w.goal!.key}, ${label}` } : undefined
          const variant = { ...w, name: `${w.name}, ${label}`, goal }
          ctx.log(`HTTP at ${fmt(store.count)} settlements: ${variant.name}`)
          const m = await measureWorkload(ctx, explorer, store.count, variant)
          measured.push(m)
          if (goal) goalHeadlines(headline, goal, m)
        } finally {
          await explorer.stop()
        }
      }
      // The workload no cache answers, with every query in the pool: the server thread's real share.
      await anyRecipientOn({ QUERY_INLINE: 'none' }, `QUERY_INLINE=none (${POOLED})`, false)
      // The same workload answered by two server threads on the one port: what the second core gives.
      await anyRecipientOn({ SERVER_THREADS: String(SERVER_THREADS) }, THREADED, true)
    } finally {
      await rpc.stop()
    }
  }

  const intro =
    `Load: \`${wrk}\` from this machine (the explorer and wrk share its ${cpus().length} cores with other work; load before → after each row). ` +
    `Closed loop: one wrk thread, ${CLOSED_CONNECTIONS} keep-alive connections, ${ctx.quick ? 1 : 4} s per run; the static page (\`/bench/static/<bytes>\`, ` +
    `same server, the workload's mean body size) and the workload alternate, ${ctx.quick ? 'one round' : 'three rounds after a 1 s warm-up of each'}; ` +
    `req/s are the medians, the ratio is the median of the per-round ratios. Explorer CPU per answer: its process CPU time over a run divided by the answers, ` +
    "for the workload and for the static page: the machine's other load barely moves it, and static ÷ workload is what the ratio would be if the server's one thread were the only limit. " +
    `Half load: a constant rate of half the workload's median, ` +
    `one wrk thread, ${PACED_CONNECTIONS} connections taking the slots of a constant-rate schedule in turn (bench/load/wrk/load.lua at wrk's 1 ms timer ` +
    `resolution; wrk2 is not packaged for Debian), ${ctx.quick ? 1 : 5} s, latency from each send; "late" = sends that left more than 1 ms after their slot ` +
    'because every connection was busy (a stalled server or client shows there), with the 99th percentile of their delay. ' +
    'The static page then runs at the same rate: its p99 is what this machine adds to any answer at that rate. ' +
    'The different-page workloads ask `/events?recipient=R&limit=20&cursor=C` with C a random position (block in the last nine tenths of the chain, log index below 2^31: ' +
    'no page is asked twice, no cache can answer) and R the same-page recipient, or one of all 5,000 drawn per request.'
  const rows = measured.map((m) => [
    fmt(m.size),
    m.name,
    fmt(m.bytes),
    fmt(m.real),
    fmt(m.ceiling),
    `**${m.ratio.toFixed(2)}**`,
    m.rounds.map((r) => (r.real.requestsPerSecond / r.ceiling.requestsPerSecond).toFixed(2)).join(' / '),
    `${ms(median(m.rounds.map((r) => r.real.p50)))} / ${ms(median(m.rounds.map((r) => r.real.p99)))}`,
    `${fmt(median(m.rounds.map((r) => r.real.cpuUs)), 1)} / ${fmt(median(m.rounds.map((r) => r.ceiling.cpuUs)), 1)}`,
    fmt(m.halfRate),
    `${ms(m.half.p50)} / ${ms(m.half.p99)} / ${ms(m.half.p999)} / ${ms(m.half.max)}`,
    `${(m.half.lateShare * 100).toFixed(1)}%${m.half.lateSends > 0 ? `, p99 ${ms(m.half.lateP99)}` : ''}`,
    ms(m.halfCeiling.p99),
    m.load,
  ])
  const markdown = [
    intro,
    table(
      [
        'settlements',
        'workload',
        'bytes',
        'req/s',
        'static req/s',
        'ratio',
        'ratio per round',
        'closed-loop p50 / p99 ms',
        'explorer CPU µs per answer / static',
        'half-load rate',
        'half-load p50 / p99 / p999 / max ms',
        'late sends, p99 ms',
        'static p99 ms at that rate',
        'load',
      ],
      rows,
    ),
    ...coresProjection(measured, dispatches, headline),
    ...profiles,
  ].join('\n\n')
  return { markdown, headline }
}

/** The same pages as `randomPagePaths`, as the query engine takes them. */
function randomPageQueries(pages: RandomPages, count: number): EventsQuery[] {
  return Array.from({ length: count }, (_, i) => ({
    recipient: syntheticRecipient(pages.firstRecipient + ((i * 7919) % pages.recipients)),
    limit: 20,
    order: 'desc' as const,
    after: { blockNumber: pages.fromBlock + Math.floor((((i * 104_729) % count) + 0.5) / count * (pages.toBlock - pages.fromBlock)), logIndex: 2 ** 31 - 1 },
  }))
}

/** A workload's two headline lines: its ratio to static, and its p99 at half its load. */
function goalHeadlines(headline: Record<string, string>, goal: NonNullable<Workload['goal']>, m: Measured): void {
  const at = `@${fmt(m.size)}`
  headline[`${goal.key} ${at}: req/s, ratio to static (target ≥ ${goal.ratio}, moonshot ${goal.moonshot})`] =
    `${fmt(m.real)} req/s, ${m.ratio.toFixed(2)} — ${verdict(m.ratio >= goal.ratio)}${m.ratio >= goal.moonshot ? ' (moonshot met)' : ''}`
  headline[`${goal.key} ${at}: p99 at half load (target < 5 ms)`] =
    `${ms(m.half.p99)} ms at ${fmt(m.halfRate)} req/s (the static page at that rate: ${ms(m.halfCeiling.p99)} ms) — ${verdict(m.half.p99 < 5)}`
}

const POOLED = 'in the pool'
/**
 * Warm-up of the any-recipient workload, whose pages are spread over the whole store: the workloads
 * before it read one recipient's, so its first rounds ran cold on minor faults of the map (at 10M
 * 0.06 / 0.09 / 0.13 of static in turn, against 0.27 / 0.27 / 0.23 on a process warmed 30 s).
 */
const COLD_WARMUP_MS = 30_000
const THREADED = `SERVER_THREADS=${SERVER_THREADS}`

/**
 * CPU per answer by thread, and the req/s it projects for more cores. As served, pages with one
 * field filter run on the uWS thread, so their throughput is that thread's (1 s ÷ its µs per answer)
 * whatever the cores; an intersection already runs in the pool. With the query moved to the pool, the
 * uWS thread pays the static page's µs (parse, write) plus the dispatch, and N − 1 cores run workers.
 */
function coresProjection(measured: Measured[], dispatches: Map<number, DispatchCost>, headline: Record<string, string>): string[] {
  if (dispatches.size === 0) return []
  const rows = measured.map((m) => {
    const d = dispatches.get(m.size)!
    const main = median(m.rounds.map((r) => r.real.mainUs))
    const others = Math.max(0, median(m.rounds.map((r) => r.real.cpuUs)) - main)
    const staticMain = median(m.rounds.map((r) => r.ceiling.mainUs))
    const pooled = m.name.includes(POOLED)
    const onThreads = m.name.includes(THREADED)
    const uws = pooled ? main : staticMain + d.mainUs
    const worker = pooled ? others : Math.max(0, main - staticMain) + d.workerOverheadUs
    const asServed = (cores: number) => Math.min(1e6 / main, pooled ? ((cores - 1) * 1e6) / others : Infinity)
    const inPool = (cores: number) => Math.min(1e6 / uws, ((cores - 1) * 1e6) / worker)
    // A server thread per core, each answering whole requests: every thread's CPU per answer, times the cores.
    const threaded = (cores: number) => (cores * 1e6) / (main + others)
    if (m.name.includes('any of')) {
      const how = pooled ? 'QUERY_INLINE=none' : onThreads ? THREADED : 'as served'
      headline[`different pages, any recipient @${fmt(m.size)}, ${how}: explorer CPU µs per answer (target ≤ 60): ${onThreads ? 'main thread' : 'uWS thread'} / other threads`] =
        `${fmt(main, 1)} / ${fmt(others, 1)} — ${verdict(main + others <= 60)}` +
        (onThreads ? '' : `; projected req/s with the query in the pool, 8 / 32 cores: ${fmt(inPool(8))} / ${fmt(inPool(32))}`) +
        (pooled ? '' : `; with a server thread per core, 8 / 32 cores: ${fmt(threaded(8))} / ${fmt(threaded(32))}`)
    }
    if (m.name.startsWith('/events/:txHash') || m.name.startsWith('/events/order/')) {
      headline[`${m.name.split(' ')[0]} @${fmt(m.size)}: explorer CPU µs per answer (target ≤ 25)`] = `${fmt(main + others, 1)} — ${verdict(main + others <= 25)}`
    }
    return [
      fmt(m.size),
      m.name,
      `${fmt(main, 1)} / ${fmt(others, 1)}`,
      fmt(staticMain, 1),
      // On server threads the main thread is one of several that answer: its own µs bound nothing alone.
      onThreads ? '—' : fmt(asServed(2)),
      onThreads ? '—' : `${fmt(asServed(8))} / ${fmt(asServed(32))}`,
      onThreads ? '—' : `${fmt(uws, 1)} / ${fmt(worker, 1)}`,
      onThreads ? '—' : `${fmt(inPool(8))} / ${fmt(inPool(32))}`,
      pooled ? '—' : `${fmt(threaded(8))} / ${fmt(threaded(32))}`,
    ]
  })
  const dispatchRows = [...dispatches].map(([size, d]) => [fmt(size), fmt(d.tasks), fmt(d.inlineUs, 1), fmt(d.mainUs, 1), fmt(d.workerUs, 1), fmt(d.workerOverheadUs, 1)])
  return [
    '#### CPU per answer by thread, and what it projects for 8 and 32 cores',
    'From the closed-loop runs above: the explorer main thread (uWS, and every query answered inline) from /proc at the 10 ms tick, and all its other threads (query pool, indexing pool, LMDB, libuv). ' +
      '"As served": pages with one field filter, lookups and `/stats` run on the uWS thread, so one core bounds them whatever the machine has. ' +
      '"Query in the pool": the uWS thread keeps the static page\'s own cost (parse and write the same bytes) plus the measured dispatch below; a worker pays the query plus its side of the exchange. ' +
      'Projection for N cores = min(1 s ÷ uWS µs, (N − 1) × 1 s ÷ worker µs). It assumes the load generator on other machines, reads that scale across threads (LMDB readers take no lock; ' +
      'an uncached page reads about 20 × 200 bytes scattered over the store, far below memory bandwidth), and no cache answering (the random pages are never asked twice). ' +
      'One uWS thread remains the ceiling: near the static page\'s req/s. ' +
      `"A server thread per core" (SERVER_THREADS = cores): each thread answers whole requests, so N cores project N × 1 s ÷ (all threads' µs per answer); the ${THREADED} row measures the second thread on this machine, where wrk takes part of the cores.`,
    table(['settlements', 'workload', 'as served: uWS thread / other threads µs', 'static page, uWS thread µs', 'as served req/s, any cores', 'as served req/s, 8 / 32 cores', 'query in the pool: uWS thread / worker µs', 'query in the pool req/s, 8 / 32 cores', 'a server thread per core req/s, 8 / 32 cores'], rows),
    'The dispatch, measured in the bench process on the same store: the any-recipient random pages run once inline and once through the query executor with `inline: "none"` (one worker, 32 in flight, pages back through the shared rings), CPU per task of the calling thread and of all others.',
    table(['settlements', 'tasks', 'inline µs (the query alone)', 'through the pool: calling thread µs', 'worker µs', 'worker overhead µs'], dispatchRows),
  ]
}
