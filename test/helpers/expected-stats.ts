/**
 * Filtered `/stats` and `/stats/series` computed from settlements read off the chain's own logs, by
 * the published definitions: every filter as on `/events` (amount bounds inclusive), `last24h` the
 * hours from the current one less 23, series buckets aligned to the UTC hour or day.
 */
import type { Settlement, Stats } from '../../src/wire/settlement.js'

export type StatsQuery = Record<string, string>

export function matchesStatsQuery(e: Settlement, q: StatsQuery): boolean {
  const is = (field: 'token' | 'recipient' | 'payer' | 'acquirerId') => q[field] === undefined || e[field] === q[field]!.toLowerCase()
  const address = q.address?.toLowerCase()
  const within = (value: number | bigint, low?: string, high?: string) =>
    (low === undefined || BigInt(value) >= BigInt(low)) && (high === undefined || BigInt(value) <= BigInt(high))
  return (
    is('token') && is('recipient') && is('payer') && is('acquirerId') &&
    (address === undefined || e.payer === address || e.recipient === address) &&
    within(e.blockNumber, q.fromBlock, q.toBlock) &&
    within(e.timestamp, q.fromTimestamp, q.toTimestamp) &&
    within(BigInt(e.amount), q.minAmount, q.maxAmount)
  )
}

const add = (into: Record<string, string>, key: string, amount: string) => {
  into[key] = (BigInt(into[key] ?? '0') + BigInt(amount)).toString()
}

export function expectedStats(settlements: Settlement[], q: StatsQuery, nowSeconds = Date.now() / 1000): Stats {
  const fromHour = Math.floor(nowSeconds / 3600) - 23
  const stats: Stats = { totalSettlements: 0, totalVolume: {}, totalFees: {}, last24h: { settlements: 0, volume: {} }, byToken: {} }
  for (const e of settlements.filter((s) => matchesStatsQuery(s, q))) {
    const recent = Math.floor(e.timestamp / 3600) >= fromHour
    stats.totalSettlements++
    add(stats.totalVolume, e.tokenSymbol, e.amount)
    add(stats.totalFees, e.tokenSymbol, e.fee)
    const t = (stats.byToken[e.token] ??= { symbol: e.tokenSymbol, decimals: e.tokenDecimals, settlements: 0, volume: '0', fees: '0', last24h: { settlements: 0, volume: '0' } })
    t.settlements++
    t.volume = (BigInt(t.volume) + BigInt(e.amount)).toString()
    t.fees = (BigInt(t.fees) + BigInt(e.fee)).toString()
    if (recent) {
      stats.last24h.settlements++
      add(stats.last24h.volume, e.tokenSymbol, e.amount)
      t.last24h.settlements++
      t.last24h.volume = (BigInt(t.last24h.volume) + BigInt(e.amount)).toString()
    }
  }
  return stats
}

export interface SeriesBody {
  interval: 'hour' | 'day'
  buckets: { start: number; settlements: number; volume: Record<string, string>; fees: Record<string, string> }[]
}

/** `q` holds interval, fromTimestamp and toTimestamp. */
export function expectedSeries(settlements: Settlement[], q: StatsQuery): SeriesBody {
  const seconds = q.interval === 'day' ? 86_400 : 3600
  const first = Math.floor(Number(q.fromTimestamp) / seconds)
  const last = Math.floor(Number(q.toTimestamp) / seconds)
  const buckets: SeriesBody['buckets'] = []
  for (let i = first; i <= last; i++) buckets.push({ start: i * seconds, settlements: 0, volume: {}, fees: {} })
  for (const e of settlements.filter((s) => matchesStatsQuery(s, q))) {
    const bucket = buckets[Math.floor(e.timestamp / seconds) - first]!
    bucket.settlements++
    add(bucket.volume, e.tokenSymbol, e.amount)
    add(bucket.fees, e.tokenSymbol, e.fee)
  }
  return { interval: q.interval as SeriesBody['interval'], buckets }
}
