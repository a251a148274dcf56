/**
 * Issue 17 figures: filtered `/stats` and `/stats/series` on a cached store, with tinybench, one request
 * at a time, answered the way the REST route answers them (`createQueryExecutor`, one worker: inline
 * when `isCheap`, in the pool otherwise), beside the unfiltered `/stats` body for comparison. Each row
 * says how many settlements matched and how many were read one by one (the rest came from buckets).
 */
import { Bench } from 'tinybench'
import { createQueryExecutor } from '../../src/explorer/query/index.js'
import { isCheap } from '../../src/explorer/query/index.js'
import { statsWalkSize, type StatsFilter } from '../../src/explorer/query/index.js'
import type { SeriesQuery } from '../../src/explorer/query/index.js'
import type { QueryTask } from '../../src/explorer/query/index.js'
import { statsBody } from '../../src/explorer/query/index.js'
import { TokenCache } from '../../src/explorer/query/index.js'
import { openStore, type Store } from '../../src/explorer/store/index.js'
import { syntheticAcquirer, syntheticRecipient, syntheticToken } from '../../src/devnet/testing/index.js'
import { ensureBenchStore, type BenchStore } from '../data/bench-store.js'
import type { SyntheticChain } from '../data/synthetic-chain.js'
import { fmt, ms, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { sampleSettlement } from './sample-queries.js'

const HOUR = 3600
const MONTH = 30 * 86_400

type Case = { name: string } & ({ kind: 'stats'; filter: StatsFilter } | { kind: 'series'; query: SeriesQuery })

/** A merchant (one of 5,000 recipients), its month aligned to the hour and not, and the walks around it. */
function cases(chain: SyntheticChain, head: number): Case[] {
  const start = chain.header(chain.shape.firstBlock).timestamp
  const end = chain.header(head).timestamp
  const month = { fromTimestamp: Math.floor(start / HOUR) * HOUR, toTimestamp: Math.floor(start / HOUR) * HOUR + MONTH - 1 }
  const unaligned = { fromTimestamp: start + 1817, toTimestamp: end - 1234 }
  const merchant = syntheticRecipient(7)
  const payer = sampleSettlement(chain, head, 0.5).payer
  const stats = (name: string, filter: StatsFilter): Case => ({ name, kind: 'stats', filter })
  const series = (name: string, query: SeriesQuery): Case => ({ name, kind: 'series', query })
  return [
    stats('merchant (recipient), a month aligned to the hour', { recipient: merchant, ...month }),
    stats('merchant, a month, unaligned bounds', { recipient: merchant, ...unaligned }),
    stats('merchant + token, a month', { recipient: merchant, token: syntheticToken(1), ...month }),
    stats('merchant as address, a month', { address: merchant, ...month }),
    stats('merchant, all time', { recipient: merchant }),
    stats('acquirerId, a month', { acquirerId: syntheticAcquirer(3), ...month }),
    stats('token, a month', { token: syntheticToken(1), ...month }),
    stats('no field filter, unaligned bounds', { ...unaligned }),
    stats('fromBlock/toBlock (the middle half)', { fromBlock: Math.floor(head * 0.25), toBlock: Math.floor(head * 0.75) }),
    stats('payer (walk)', { payer }),
    stats('merchant + minAmount (walk)', { recipient: merchant, minAmount: '500000000', ...month }),
    stats('merchant + payer (walk)', { recipient: merchant, payer }),
    stats('merchant + acquirerId (walk)', { recipient: merchant, acquirerId: syntheticAcquirer(3) }),
    // Amounts are uniform in 1..10^9 (bench/sections/amount-ranges.ts): 1 % of one token's settlements.
    stats('token + amount range of 1 % (amount index walk)', { token: syntheticToken(0), minAmount: '500000000', maxAmount: '510000000' }),
    series('merchant, day series over a month', { interval: 'day', recipient: merchant, ...month }),
    series('merchant, hour series over a month (720 buckets)', { interval: 'hour', recipient: merchant, ...month }),
    series('no filter, hour series of 2,000 buckets', { interval: 'hour', fromTimestamp: month.fromTimestamp, toTimestamp: month.fromTimestamp + 2000 * HOUR - 1 }),
  ]
}

const taskOf = (c: Case): QueryTask => (c.kind === 'stats' ? { kind: 'stats', filter: c.filter, nowSeconds: Date.now() / 1000 } : { kind: 'series', query: c.query })

/** Settlements the answer counts: `totalSettlements`, or the buckets' sum. */
function matched(body: Uint8Array): number {
  const parsed = JSON.parse(Buffer.from(body).toString()) as { totalSettlements?: number; buckets?: { settlements: number }[] }
  return parsed.totalSettlements ?? parsed.buckets!.reduce((n, b) => n + b.settlements, 0)
}

function latency(bench: Bench, name: string) {
  const result = bench.getTask(name)?.result
  if (!result || !('latency' in result)) throw new Error(`tinybench task ${name} did not complete`)
  return { p50: result.latency.p50 ?? 0, p99: result.latency.p99 ?? 0 }
}

/** Bytes of the buckets database per settlement (its pages). */
function bucketBytes(store: Store, settlements: number): number {
  const s = store.buckets.getStats() as { treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number; pageSize: number }
  return ((s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize) / settlements
}

export async function statsLatency(ctx: BenchContext): Promise<SectionResult> {
  const parts: string[] = []
  const headline: Record<string, string> = {}
  for (const size of ctx.sizes) parts.push(await measureStats(ctx, await ensureBenchStore(ctx.chain, size, ctx.log), headline))
  return {
    markdown:
      'Filtered statistics (issue 17 items 3-4), tinybench, one request at a time, through `createQueryExecutor({ workers: 1 })` as the REST route runs them ' +
      '(inline when `isCheap`, else the Piscina worker). "a month" is 30 days from the chain\'s first hour, which covers the whole synthetic chain ' +
      '(2 s blocks, about 10 settlements a second: 2.3 days at 1M, 23 days at 10M); the merchant is one of 5,000 recipients. ' +
      '"read one by one" is `statsWalkSize`: settlements summed by walking an index rather than read from hour buckets.\n\n' +
      parts.join('\n\n'),
    headline,
  }
}

/** One store's table (markdown), its headline figures added to `headline`. */
export async function measureStats(ctx: BenchContext, built: BenchStore, headline: Record<string, string>): Promise<string> {
  ctx.log(`filtered stats at ${fmt(built.count)} settlements`)
  const store = openStore({ path: built.path })
  const tokens = new TokenCache(store)
  const executor = createQueryExecutor({ store, dataDir: built.path, workers: 1 })
  const all = cases(ctx.chain, built.head)
  const bench = new Bench({ time: ctx.quick ? 150 : 1000, warmupTime: 100 })
  const unfiltered = statsBody(store, tokens)
  bench.add('unfiltered /stats (the cached running totals)', () => {
    unfiltered()
  })
  for (const c of all) {
    bench.add(c.name, async () => {
      await executor.run(taskOf(c))
    })
  }
  const loadBefore = load1()
  await bench.run()
  const rows: (string | number)[][] = [['unfiltered /stats (the cached running totals)', fmt(built.count), '0', 'inline', ms(latency(bench, 'unfiltered /stats (the cached running totals)').p50), ms(latency(bench, 'unfiltered /stats (the cached running totals)').p99)]]
  for (const c of all) {
    const task = taskOf(c)
    const walked = statsWalkSize(store, c.kind === 'stats' ? c.filter : c.query)
    const { p50, p99 } = latency(bench, c.name)
    rows.push([c.name, fmt(matched((await executor.run(task))!)), fmt(walked), isCheap(store, task) ? 'inline' : 'pool', ms(p50), ms(p99)])
  }
  const monthly = latency(bench, all[0]!.name)
  headline[`merchant's month, filtered /stats @${fmt(built.count)} (target p99 < 10 ms)`] = `p50 ${ms(monthly.p50)} ms, p99 ${ms(monthly.p99)} ms — ${monthly.p99 < 10 ? 'met' : '**missed**'}`
  const hourly = latency(bench, 'merchant, hour series over a month (720 buckets)')
  headline[`merchant's month, hour series @${fmt(built.count)}`] = `p50 ${ms(hourly.p50)} ms, p99 ${ms(hourly.p99)} ms`
  const bytes = bucketBytes(store, built.count)
  await executor.close()
  await store.close()
  return (
    `### ${fmt(built.count)} settlements (load ${loadBefore} → ${load1()}; buckets database ${fmt(bytes)} bytes per settlement)\n\n` +
    table(['request', 'settlements matched', 'read one by one', 'where', 'p50 ms', 'p99 ms'], rows)
  )
}
