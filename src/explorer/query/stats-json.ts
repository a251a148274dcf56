/**
 * The bodies of filtered `GET /stats` (SPEC §2.3, the same shape as unfiltered) and `GET /stats/series`,
 * summed by stats-plan.ts. `last24h` is the 24 hour buckets ending with the current hour, as unfiltered.
 */
import type { Hex, Stats } from '../../wire/index.js'
import { HOUR_SECONDS, type Store } from '../store/index.js'
import { sumStats, type StatsFilter } from './stats-plan.js'
import type { TokenCache } from './token-cache.js'

export type SeriesInterval = 'hour' | 'day'

export interface SeriesQuery extends StatsFilter {
  interval: SeriesInterval
  fromTimestamp: number
  toTimestamp: number
}

export const INTERVAL_SECONDS: Record<SeriesInterval, number> = { hour: HOUR_SECONDS, day: 24 * HOUR_SECONDS }
export const MAX_SERIES_BUCKETS = 2000

/** How many buckets a series of this interval over [from, to] has, the partial first and last included. */
export const seriesLength = (interval: SeriesInterval, from: number, to: number) =>
  Math.floor(to / INTERVAL_SECONDS[interval]) - Math.floor(from / INTERVAL_SECONDS[interval]) + 1

interface Totals {
  count: number
  volume: bigint
  fees: bigint
  last24count: number
  last24volume: bigint
}

const add = (into: Record<string, string>, key: string, amount: bigint) => {
  into[key] = (BigInt(into[key] ?? '0') + amount).toString()
}

export function statsJson(store: Store, tokens: TokenCache, f: StatsFilter, nowSeconds: number): Buffer {
  const fromHour = Math.floor(nowSeconds / HOUR_SECONDS) - 23
  const byToken = new Map<string, Totals>()
  sumStats(store, f, (hour, token, count, volume, fees) => {
    let t = byToken.get(token)
    if (!t) byToken.set(token, (t = { count: 0, volume: 0n, fees: 0n, last24count: 0, last24volume: 0n }))
    t.count += count
    t.volume += volume
    t.fees += fees
    if (hour >= fromHour) {
      t.last24count += count
      t.last24volume += volume
    }
  })

  const stats: Stats = { totalSettlements: 0, totalVolume: {}, totalFees: {}, last24h: { settlements: 0, volume: {} }, byToken: {} }
  for (const [token, t] of [...byToken].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (t.count === 0) continue
    const { symbol, decimals } = tokens.get(token)
    stats.totalSettlements += t.count
    add(stats.totalVolume, symbol, t.volume)
    add(stats.totalFees, symbol, t.fees)
    stats.last24h.settlements += t.last24count
    if (t.last24count > 0) add(stats.last24h.volume, symbol, t.last24volume)
    stats.byToken[`0x${token}` as Hex] = {
      symbol,
      decimals,
      settlements: t.count,
      volume: t.volume.toString(),
      fees: t.fees.toString(),
      last24h: { settlements: t.last24count, volume: t.last24volume.toString() },
    }
  }
  return Buffer.from(JSON.stringify(stats))
}

interface SeriesBucket {
  start: number
  settlements: number
  volume: Record<string, string>
  fees: Record<string, string>
}

/** Every bucket of the range in ascending order, empty ones included; the caller bounds their number. */
export function seriesJson(store: Store, tokens: TokenCache, q: SeriesQuery): Buffer {
  const seconds = INTERVAL_SECONDS[q.interval]
  const first = Math.floor(q.fromTimestamp / seconds)
  const buckets: SeriesBucket[] = Array.from({ length: seriesLength(q.interval, q.fromTimestamp, q.toTimestamp) }, (_, i) => ({
    start: (first + i) * seconds,
    settlements: 0,
    volume: {},
    fees: {},
  }))
  const sums = buckets.map(() => new Map<string, { count: number; volume: bigint; fees: bigint }>())
  sumStats(store, q, (hour, token, count, volume, fees) => {
    const i = Math.floor((hour * HOUR_SECONDS) / seconds) - first
    buckets[i]!.settlements += count
    const sum = sums[i]!.get(token) ?? { count: 0, volume: 0n, fees: 0n }
    sums[i]!.set(token, { count: sum.count + count, volume: sum.volume + volume, fees: sum.fees + fees })
  })
  buckets.forEach((bucket, i) => {
    for (const [token, sum] of sums[i]!) {
      // `address` sums payer and recipient buckets less self-payments: a token may net to nothing.
      if (sum.count === 0) continue
      const { symbol } = tokens.get(token)
      add(bucket.volume, symbol, sum.volume)
      add(bucket.fees, symbol, sum.fees)
    }
  })
  return Buffer.from(JSON.stringify({ interval: q.interval, buckets }))
}
