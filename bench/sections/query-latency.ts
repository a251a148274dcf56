/**
 * Query latency with tinybench on a cached store: every sample query answered in-process
 * (`runEventsQuery`) and through the Piscina pool (`createQueryExecutor`, one worker, one task in
 * flight: the dispatch round trip is the difference).
 */
import { Bench } from 'tinybench'
import { keyRange } from '../../src/explorer/query/index.js'
import { createQueryExecutor } from '../../src/explorer/query/index.js'
import { fieldFilters, indexCount, indexWalk, runEventsQuery, settlementReader, type FieldFilter } from '../../src/explorer/query/index.js'
import { fieldHex, settlementJson } from '../../src/explorer/store/index.js'
import type { Store } from '../../src/explorer/store/index.js'
import type { EventsQuery } from '../../src/explorer/query/index.js'
import { TokenCache } from '../../src/explorer/query/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { ensureBenchStore } from '../data/bench-store.js'
import { fmt, ms, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { sampleQueries } from './sample-queries.js'

interface Row {
  name: string
  inline: ReturnType<typeof stats>
  pool: ReturnType<typeof stats>
  total: number
}

function stats(bench: Bench, name: string) {
  const result = bench.getTask(name)?.result
  if (!result || !('latency' in result)) throw new Error(`tinybench task ${name} did not complete`)
  return { p50: result.latency.p50 ?? 0, p99: result.latency.p99 ?? 0, hz: result.throughput.mean }
}

export async function queryLatency(ctx: BenchContext): Promise<SectionResult> {
  const parts: string[] = []
  const headline: Record<string, string> = {}
  for (const size of ctx.sizes) {
    const built = await ensureBenchStore(ctx.chain, size, ctx.log)
    ctx.log(`query latency at ${fmt(built.count)} settlements`)
    const store = openStore({ path: built.path })
    const tokens = new TokenCache(store)
    const executor = createQueryExecutor({ store, dataDir: built.path, workers: 1 })
    const queries = sampleQueries(ctx.chain, built.head)
    const time = ctx.quick ? 150 : 600
    const inline = new Bench({ time, warmupTime: 50 })
    const pooled = new Bench({ time, warmupTime: 50 })
    for (const { name, query } of queries) {
      inline.add(name, () => {
        runEventsQuery(store, tokens, query)
      })
      pooled.add(name, async () => {
        await executor.run({ kind: 'events', query })
      })
    }
    const loadBefore = load1()
    await inline.run()
    await pooled.run()
    const rows: Row[] = queries.map(({ name, query }) => ({
      name,
      inline: stats(inline, name),
      pool: stats(pooled, name),
      total: (JSON.parse(runEventsQuery(store, tokens, query).toString()) as { total: number }).total,
    }))
    const breakdown = await recipientBreakdown(store, tokens, queries.find((q) => q.name === 'recipient')!.query, time)
    await executor.close()
    await store.close()

    parts.push(
      `### ${fmt(built.count)} settlements (load ${loadBefore} → ${load1()})\n\n` +
        table(
          ['query', 'matches (total)', 'in-process p50 ms', 'in-process p99 ms', 'in-process ops/s', 'pool p50 ms', 'pool p99 ms', 'pool ops/s'],
          rows.map((r) => [r.name, fmt(r.total), ms(r.inline.p50), ms(r.inline.p99), fmt(r.inline.hz), ms(r.pool.p50), ms(r.pool.p99), fmt(r.pool.hz)]),
        ),
    )
    parts.push(
      `#### Where a recipient page's time goes (${fmt(built.count)} settlements; each step alone, with the engine's own functions, p50 µs)\n\n` +
        table(['step', 'µs'], breakdown.map(([step, us]) => [step, fmt(us, 1)])),
    )
    const recipient = rows.find((r) => r.name === 'recipient')!
    headline[`recipient query p50 in-process / pool @${fmt(built.count)}`] = `${ms(recipient.inline.p50)} / ${ms(recipient.pool.p50)} ms`
    const worst = [...rows].sort((a, b) => b.inline.p50 - a.inline.p50)[0]!
    headline[`slowest query @${fmt(built.count)}`] = `${worst.name}: ${ms(worst.inline.p50)} ms p50`
  }
  return {
    markdown:
      'Each sample query at limit 20 unless named, tinybench, one at a time. "pool" = `createQueryExecutor({ workers: 1 })`, ' +
      'the task sent to the Piscina worker and the JSON text back.\n\n' +
      parts.join('\n\n'),
    headline,
  }
}

/** The steps of `GET /events?recipient=` timed one by one, and what the rendering would cost from ready JSON. */
async function recipientBreakdown(store: Store, tokens: TokenCache, query: EventsQuery, time: number): Promise<[string, number][]> {
  const range = keyRange(store, query)!
  const [filter] = fieldFilters({ recipient: query.recipient! }) as [FieldFilter]
  const values: Buffer[] = []
  for (const v of indexWalk(store, filter, range, 'desc')) if (values.push(v) > query.limit) break
  const read = settlementReader(store, filter)
  const settlements = values.map(read)
  const ready = settlements.slice(0, query.limit).map((s) => settlementJson(s, tokens.get(fieldHex(s, 'token'))))
  const steps: [string, () => unknown][] = [
    ['whole query (runEventsQuery)', () => runEventsQuery(store, tokens, query)],
    ['exact total (indexCount)', () => indexCount(store, filter, range)],
    [`walk ${values.length} index values (indexWalk)`, () => {
      let n = 0
      for (const _ of indexWalk(store, filter, range, 'desc')) if (++n > query.limit) break
    }],
    [`load ${values.length} settlements as the recipient's walk does (its runs)`, () => values.map(settlementReader(store, filter))],
    [`render ${ready.length} settlements (settlementJson)`, () => settlements.slice(0, query.limit).map((s) => settlementJson(s, tokens.get(fieldHex(s, 'token')))).join(',')],
    [`join ${ready.length} ready JSON strings (what stored JSON would cost)`, () => ready.join(',')],
  ]
  const bench = new Bench({ time, warmupTime: 50 })
  for (const [name, fn] of steps) bench.add(name, fn)
  await bench.run()
  return steps.map(([name]) => [name, stats(bench, name).p50 * 1000])
}
