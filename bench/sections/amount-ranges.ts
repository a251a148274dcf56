/**
 * Issue 17 figures: `/events` pages with amount bounds (token + minAmount + maxAmount at 1 %, 50 % and
 * 99 % selectivity, and bounds without a token), in-process with tinybench, with the exact total each
 * answers; then `GET /events/export` of the whole store from the explorer as its own process: rows/s
 * for a client reading as fast as it can, and the explorer's memory sampled throughout.
 */
import { Bench } from 'tinybench'
import { createQueryExecutor } from '../../src/explorer/query/index.js'
import { isCheap } from '../../src/explorer/query/index.js'
import { runEventsQuery } from '../../src/explorer/query/index.js'
import type { EventsQuery } from '../../src/explorer/query/index.js'
import { TokenCache } from '../../src/explorer/query/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { syntheticToken } from '../../src/devnet/testing/index.js'
import { ensureBenchStore } from '../data/bench-store.js'
import { fmt, ms, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { startExplorerChild, type ExplorerChild } from './services.js'

/** Amounts of the synthetic chain are uniform in 1..10^9: a range's selectivity is its width over 10^9. */
const RANGES: [string, number, number][] = [
  ['1 %', 500_000_000, 510_000_000],
  ['50 %', 250_000_000, 750_000_000],
  ['99 %', 5_000_000, 995_000_000],
]

export async function amountRanges(ctx: BenchContext): Promise<SectionResult> {
  const parts: string[] = []
  const headline: Record<string, string> = {}
  for (const size of ctx.sizes) {
    const built = await ensureBenchStore(ctx.chain, size, ctx.log)
    ctx.log(`amount ranges at ${fmt(built.count)} settlements`)
    const store = openStore({ path: built.path })
    const tokens = new TokenCache(store)
    const executor = createQueryExecutor({ store, dataDir: built.path, workers: 1 })
    const token = syntheticToken(0)
    const queries: [string, EventsQuery][] = []
    for (const [name, min, max] of RANGES) {
      queries.push([`token + amount ${name}`, { token, minAmount: String(min), maxAmount: String(max), limit: 20, order: 'desc' }])
    }
    queries.push(['token + amount 1 %, oldest first', { token, minAmount: '500000000', maxAmount: '510000000', limit: 20, order: 'asc' }])
    queries.push(['amount 1 %, no token', { minAmount: '500000000', maxAmount: '510000000', limit: 20, order: 'desc' }])
    queries.push(['minAmount 50 %, no token', { minAmount: '500000001', limit: 20, order: 'desc' }])
    queries.push(['token alone (reference)', { token, limit: 20, order: 'desc' }])
    const time = ctx.quick ? 150 : 1000
    const bench = new Bench({ time, warmupTime: 100 })
    for (const [name, query] of queries) bench.add(name, () => runEventsQuery(store, tokens, query))
    const loadBefore = load1()
    await bench.run()
    const rows = queries.map(([name, query]) => {
      const result = bench.getTask(name)!.result as { latency: { p50?: number; p99?: number }; throughput: { mean: number } }
      const total = (JSON.parse(runEventsQuery(store, tokens, query).toString()) as { total: number }).total
      const where = isCheap(store, { kind: 'events', query }) ? 'server thread' : 'pool'
      return [name, fmt(total), ms(result.latency.p50 ?? 0), ms(result.latency.p99 ?? 0), fmt(result.throughput.mean), where]
    })
    await executor.close()
    await store.close()
    parts.push(
      `### ${fmt(built.count)} settlements (load ${loadBefore} → ${load1()})\n\n` +
        table(['query (limit 20)', 'total (exact)', 'p50 ms', 'p99 ms', 'ops/s', 'runs on'], rows),
    )
    for (const [name, , , p99] of rows.slice(0, 3)) headline[`${name} p99 @${fmt(built.count)}`] = `${p99} ms`

    const exported = await exportFigures(built.path, ctx)
    parts.push(
      `#### Export of every settlement (${fmt(built.count)}), NDJSON, one client reading as fast as it can\n\n` +
        table(
          ['rows', 'MB', 'seconds', 'rows/s', 'explorer RSS before → peak MB', 'anonymous RSS before → peak MB'],
          [[fmt(exported.rows), fmt(exported.bytes / 1024 ** 2), exported.seconds.toFixed(1), fmt(exported.rows / exported.seconds), `${fmt(exported.rss[0])} → ${fmt(exported.rss[1])}`, `${fmt(exported.anon[0])} → ${fmt(exported.anon[1])}`]],
        ) +
        '\n\nRSS counts the LMDB pages the walk maps in (file pages the kernel may drop); anonymous RSS is what the process itself holds.',
    )
    headline[`export rows/s @${fmt(built.count)}`] = `${fmt(exported.rows / exported.seconds)} (anonymous RSS ${fmt(exported.anon[0])} → ${fmt(exported.anon[1])} MB)`
  }
  return {
    markdown:
      'Pages of `/events` with amount bounds, in-process (`runEventsQuery`), tinybench one at a time; "runs on" is where the server would run it (`isCheap`). ' +
      'The synthetic chain spreads amounts uniformly over 1..10^9 across 3 tokens, so a range of width w·10^9 holds a share w of a token. ' +
      'Totals come from the amount index (store/amounts.ts): bucket counts plus the two partial leaves, whatever the selectivity; the page from the cheaper of walking the token index in chain order or listing the range.\n\n' +
      parts.join('\n\n'),
    headline,
  }
}

async function exportFigures(dataDir: string, ctx: BenchContext) {
  const explorer: ExplorerChild = await startExplorerChild({ dataDir, rpcUrl: 'http://127.0.0.1:9', queryWorkers: 0 })
  try {
    const memory = async () => {
      const { memory: m, rssAnonBytes } = await explorer.ask<{ memory: NodeJS.MemoryUsage; rssAnonBytes: number }>({ type: 'memory' })
      return [m.rss / 1024 ** 2, rssAnonBytes / 1024 ** 2] as const
    }
    const [rssBefore, anonBefore] = await memory()
    let [rssPeak, anonPeak] = [rssBefore, anonBefore]
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const [rss, anon] = await memory()
        rssPeak = Math.max(rssPeak, rss)
        anonPeak = Math.max(anonPeak, anon)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    })()
    ctx.log('  exporting every settlement')
    const started = performance.now()
    const response = await fetch(`${explorer.ready.url}/events/export?format=ndjson`)
    let bytes = 0
    let rows = 0
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 0x0a) rows++
    }
    const seconds = (performance.now() - started) / 1000
    sampling = false
    await sampler
    return { rows, bytes, seconds, rss: [rssBefore, rssPeak] as const, anon: [anonBefore, anonPeak] as const }
  } finally {
    await explorer.stop()
  }
}
