/**
 * HTTP throughput and latency against the real explorer: each endpoint under closed-loop load from a
 * separate process, beside a static page of the same byte size served by the same server in the same
 * run (the ceiling), then at half its own throughput for the latency target; and the same for
 * QUERY_WORKERS 0, 1 and 2 to choose the default.
 */
import { syntheticRecipient } from '../../test/helpers/synthetic-settlements.js'
import { ensureBenchStore, type BenchStore } from '../data/bench-store.js'
import { startChild, type BenchChild } from '../lib/child.js'
import { fmt, ms, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { LoadOptions, LoadResult } from '../load/http-load.js'
import { profileMarkdown } from '../profile/summarize-cpu-profile.js'
import type { BenchContext, SectionResult } from './context.js'
import { queryString, sampleQueries, sampleSettlement } from './sample-queries.js'
import { profiled, rssOf, startExplorerChild, startRpc, type ExplorerChild } from './services.js'

type Loader = BenchChild<{ type: 'ready' }>

interface Endpoint {
  name: string
  paths: string[]
}

function endpoints(ctx: BenchContext, store: BenchStore): Endpoint[] {
  const recipients = Array.from({ length: 64 }, (_, i) => `/events?recipient=${syntheticRecipient(i * 37)}`)
  const txHashes = Array.from({ length: 64 }, (_, i) => `/events/${sampleSettlement(ctx.chain, store.head, (i + 0.5) / 64).txHash}`)
  const deep = sampleQueries(ctx.chain, store.head).find((q) => q.name === 'recipient, cursor at the middle')!
  return [
    { name: '/events?recipient= (selective, 20 results)', paths: recipients },
    { name: '/events (unfiltered, 20 results)', paths: ['/events'] },
    { name: '/events?recipient=&cursor= (deep page)', paths: [`/events${queryString(deep.query)}`] },
    { name: '/events/:txHash', paths: txHashes },
    { name: '/stats', paths: ['/stats'] },
  ]
}

async function bodyBytes(url: string, path: string): Promise<number> {
  const response = await fetch(`${url}${path}`)
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`)
  return (await response.arrayBuffer()).byteLength
}

async function measure(ctx: BenchContext, loader: Loader, explorer: ExplorerChild, paths: string[], o: Partial<LoadOptions>, durationMs: number) {
  const { hostname, port } = new URL(explorer.ready.url)
  const options: LoadOptions = { host: hostname, port: Number(port), paths, connections: 64, pipeline: 1, durationMs, warmupMs: ctx.quick ? 150 : 300, ...o }
  return (await loader.ask<{ result: LoadResult }>({ type: 'run', options })).result
}

interface Pair {
  name: string
  bytes: number
  real: LoadResult
  ceiling: LoadResult
  half?: LoadResult
  load: string
}

async function pairFor(ctx: BenchContext, loader: Loader, explorer: ExplorerChild, e: Endpoint, durationMs: number, withHalf: boolean): Promise<Pair> {
  const bytes = await bodyBytes(explorer.ready.url, e.paths[0]!)
  // Unmeasured warm-up of both paths: a fresh server (JIT, pool worker start) would otherwise flatter whichever runs second.
  await measure(ctx, loader, explorer, [`/bench/static/${bytes}`, ...e.paths], {}, ctx.quick ? 300 : 1000)
  const before = load1()
  const ceiling = await measure(ctx, loader, explorer, [`/bench/static/${bytes}`], {}, durationMs)
  const real = await measure(ctx, loader, explorer, e.paths, {}, durationMs)
  const half = withHalf ? await measure(ctx, loader, explorer, e.paths, { rate: Math.max(100, Math.round(real.requestsPerSecond / 2)), connections: 64 }, durationMs) : undefined
  if (real.non200 > 0 || ceiling.non200 > 0) throw new Error(`${e.name}: ${real.non200} non-200 answers under load`)
  return { name: e.name, bytes, real, ceiling, half, load: `${before} → ${load1()}` }
}

export async function httpThroughput(ctx: BenchContext): Promise<SectionResult> {
  const size = ctx.sizes[0]!
  const store = await ensureBenchStore(ctx.chain, size, ctx.log)
  const durationMs = ctx.quick ? 700 : 4000
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements: size })
  const loader = await startChild<{ type: 'ready' }>('load/http-load-process.ts')
  const headline: Record<string, string> = {}
  const parts: string[] = []
  try {
    ctx.log(`HTTP throughput at ${fmt(store.count)} settlements (QUERY_WORKERS=1)`)
    const explorer = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: 1 })
    const pairs: Pair[] = []
    try {
      for (const e of endpoints(ctx, store)) pairs.push(await pairFor(ctx, loader, explorer, e, durationMs, true))
      const memory = await rssOf(explorer)
      headline['explorer RSS after HTTP load (peak)'] = `${fmt(memory.rss / 1024 ** 2)} MB (${fmt(memory.maxRss / 1024 ** 2)} MB)`
    } finally {
      await explorer.stop()
    }
    const recipient = pairs[0]!
    const ratio = recipient.real.requestsPerSecond / recipient.ceiling.requestsPerSecond
    headline['/events?recipient= req/s, ratio to static (target ≥ 0.5)'] = `${fmt(recipient.real.requestsPerSecond)} req/s, ${ratio.toFixed(2)} — ${verdict(ratio >= 0.5)}`
    headline['/events?recipient= p99 at half load (target < 5 ms)'] = `${ms(recipient.half!.p99)} ms — ${verdict(recipient.half!.p99 < 5)}`
    parts.push(
      `Load: ${ctx.quick ? 'quick' : 'full'} — closed loop, 64 keep-alive connections, one request in flight each (no pipelining: uWS leaves pipelined requests unanswered when the reply comes from a later event-loop turn, as pool replies do), ${durationMs / 1000} s per run after a ${ctx.quick ? 0.15 : 0.3} s warm-up, ` +
        'from a separate process; "half load" = fixed rate at half the endpoint\'s own closed-loop req/s over 64 connections, ' +
        'latency from the scheduled send time. Static = `/bench/static/<bytes>` on the same server, same byte size, measured just before.\n\n' +
        table(
          ['endpoint', 'bytes', 'req/s', 'static req/s', 'ratio', 'p50 ms', 'p99 ms', 'p999 ms', 'half-load rate', 'half-load p50 / p99 / p999 ms', 'load'],
          pairs.map((p) => [
            p.name,
            fmt(p.bytes),
            fmt(p.real.requestsPerSecond),
            fmt(p.ceiling.requestsPerSecond),
            (p.real.requestsPerSecond / p.ceiling.requestsPerSecond).toFixed(2),
            ms(p.real.p50),
            ms(p.real.p99),
            ms(p.real.p999),
            fmt(Math.round(p.real.requestsPerSecond / 2)),
            `${ms(p.half!.p50)} / ${ms(p.half!.p99)} / ${ms(p.half!.p999)}`,
            p.load,
          ]),
        ),
    )

    ctx.log('QUERY_WORKERS 0 / 1 / 2')
    const rows: (string | number)[][] = []
    const selective = endpoints(ctx, store)[0]!
    const unfiltered = endpoints(ctx, store)[1]!
    const rounds = ctx.quick ? [0, 1, 2] : [0, 1, 2, 2, 1, 0]
    const perWorkers = new Map<number, number[]>()
    for (const workers of rounds) {
      const explorer = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: workers })
      try {
        const sel = await pairFor(ctx, loader, explorer, selective, durationMs, true)
        const all = ctx.quick ? undefined : await pairFor(ctx, loader, explorer, unfiltered, durationMs, false)
        rows.push([
          workers,
          fmt(sel.real.requestsPerSecond),
          fmt(sel.ceiling.requestsPerSecond),
          (sel.real.requestsPerSecond / sel.ceiling.requestsPerSecond).toFixed(2),
          ms(sel.real.p99),
          ms(sel.half!.p99),
          all ? fmt(all.real.requestsPerSecond) : '—',
          all ? (all.real.requestsPerSecond / all.ceiling.requestsPerSecond).toFixed(2) : '—',
          sel.load,
        ])
        perWorkers.set(workers, [...(perWorkers.get(workers) ?? []), sel.real.requestsPerSecond])
      } finally {
        await explorer.stop()
      }
    }
    for (const [workers, rates] of [...perWorkers].sort((a, b) => a[0] - b[0])) {
      headline[`QUERY_WORKERS=${workers}: /events?recipient= req/s`] = rates.map((r) => fmt(r)).join(', ')
    }
    parts.push(
      `#### QUERY_WORKERS (same load, server restarted for each${ctx.quick ? '' : '; order 0 1 2 2 1 0 so that drifting machine load does not favour one'})\n\n` +
        table(['QUERY_WORKERS', 'recipient req/s', 'static req/s', 'ratio', 'p99 ms', 'half-load p99 ms', 'unfiltered req/s', 'unfiltered ratio', 'load'], rows),
    )

    if (!ctx.quick) {
      ctx.log('profiling /events?recipient= under load (QUERY_WORKERS=0, so the query runs on the profiled thread)')
      const explorer = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: 0 })
      await measure(ctx, loader, explorer, selective.paths, {}, 1000)
      await profiled(explorer, `${ctx.profileDir}/http`, () => measure(ctx, loader, explorer, selective.paths, {}, durationMs))
      await explorer.stop()
      parts.push(`#### Where the time goes: /events?recipient= under closed-loop load, QUERY_WORKERS=0 (V8 CPU profile of the main thread over the measured window)\n\n${profileMarkdown(`${ctx.profileDir}/http`)}`)
    }
  } finally {
    await loader.stop()
    await rpc.stop()
  }
  return { markdown: parts.join('\n\n'), headline }
}
