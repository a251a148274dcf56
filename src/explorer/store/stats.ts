/**
 * Running statistics, kept inside the indexing transaction so that `/stats` reads a handful of entries
 * instead of aggregating settlements: per-token totals, and per-(hour, token) buckets for the last 24 h.
 * `last24h` sums the 24 hour buckets ending with the current one, so it covers between 23 and 24 hours.
 */
import type { Hex, Stats } from '../../wire/index.js'
import { HOUR_SECONDS, decodeBareHexKey, decodeHourKey, encodeBareHexKey, encodeHourKey, hourStartKey } from './keys.js'
import type { Store } from './open-store.js'
import { fieldHex, type StoredSettlement, type TokenInfo } from './record.js'
import { addToBuckets, writeBuckets, type BucketChange } from './buckets.js'

interface Figures {
  count: number
  volume: string
  fees?: string
}

/** One token's, or one (hour, token)'s, change; bigints and hex so that it crosses to another thread as is. */
interface Delta {
  /** Lowercase hex without 0x. */
  token: string
  /** Hours since the epoch; -1 for the token's all-time figures. */
  hour: number
  count: number
  volume: bigint
  fees: bigint
}

/** What a batch of settlements adds to (or takes from) the stats, built wherever the batch is. */
export interface StatsChange {
  perToken: Map<string, Delta>
  perHour: Map<string, Delta>
  /** Per field value, hour and token, for filtered stats (buckets.ts). */
  buckets: BucketChange
}

export function emptyStatsChange(): StatsChange {
  return { perToken: new Map(), perHour: new Map(), buckets: new Map() }
}

function accumulate(into: Map<string, Delta>, id: string, token: string, hour: number, amount: bigint, fee: bigint, sign: 1 | -1): void {
  let delta = into.get(id)
  if (!delta) into.set(id, (delta = { token, hour, count: 0, volume: 0n, fees: 0n }))
  delta.count += sign
  delta.volume += sign === 1 ? amount : -amount
  delta.fees += sign === 1 ? fee : -fee
}

/** Adds (sign 1) or takes back (sign -1) one settlement; `token` is lowercase hex without 0x. */
export function addToStatsChange(change: StatsChange, token: string, timestamp: number, amount: bigint, fee: bigint, sign: 1 | -1): void {
  const hour = Math.floor(timestamp / HOUR_SECONDS)
  accumulate(change.perToken, token, token, -1, amount, fee, sign)
  accumulate(change.perHour, `${hour}:${token}`, token, hour, amount, fee, sign)
}

function write(db: Store['stats'], deltas: Map<string, Delta>, withFees: boolean): void {
  for (const { token, hour, count, volume, fees } of deltas.values()) {
    const tokenKey = encodeBareHexKey(token)
    const key = hour < 0 ? tokenKey : encodeHourKey(hour, tokenKey)
    const current = (db.get(key) as Figures | undefined) ?? { count: 0, volume: '0', fees: '0' }
    const next: Figures = { count: current.count + count, volume: (BigInt(current.volume) + volume).toString() }
    if (withFees) next.fees = (BigInt(current.fees ?? '0') + fees).toString()
    if (next.count === 0) db.removeSync(key)
    else db.putSync(key, next)
  }
}

/** Several batches' changes as one, so that a commit of them writes each token, hour and bucket once. */
export function mergeStatsChanges(changes: readonly StatsChange[]): StatsChange {
  if (changes.length === 1) return changes[0]!
  const merged = emptyStatsChange()
  const add = <D extends { count: number; volume: bigint; fees: bigint }>(into: Map<string, D>, from: Map<string, D>) => {
    for (const [id, delta] of from) {
      const sum = into.get(id)
      if (!sum) into.set(id, { ...delta })
      else {
        sum.count += delta.count
        sum.volume += delta.volume
        sum.fees += delta.fees
      }
    }
  }
  for (const change of changes) {
    add(merged.perToken, change.perToken)
    add(merged.perHour, change.perHour)
    add(merged.buckets, change.buckets)
  }
  return merged
}

/** One write per token and hour; inside a write transaction. */
export function writeStatsChange(store: Store, change: StatsChange): void {
  write(store.stats, change.perToken, true)
  write(store.hours, change.perHour, false)
  writeBuckets(store, change.buckets)
}

/** Adds (sign 1) or takes back (sign -1) stored settlements; inside a write transaction. */
export function applyToStats(store: Store, settlements: StoredSettlement[], sign: 1 | -1): void {
  const change = emptyStatsChange()
  const bytes = (s: StoredSettlement, field: 'token' | 'recipient' | 'acquirerId') => Buffer.from(fieldHex(s, field), 'hex').toString('latin1')
  for (const s of settlements) {
    const [amount, fee] = [BigInt(s.amount), BigInt(s.fee)]
    addToStatsChange(change, fieldHex(s, 'token'), s.timestamp, amount, fee, sign)
    const parties = { token: bytes(s, 'token'), recipient: bytes(s, 'recipient'), acquirerId: bytes(s, 'acquirerId') }
    addToBuckets(change.buckets, parties, s.timestamp, amount, fee, sign)
  }
  writeStatsChange(store, change)
}

export function readStats(store: Store, tokenOf: (addressHex: string) => TokenInfo, nowSeconds: number): Stats {
  const stats: Stats = { totalSettlements: 0, totalVolume: {}, totalFees: {}, last24h: { settlements: 0, volume: {} }, byToken: {} }
  const sum = (into: Record<string, string>, key: string, amount: string) => {
    into[key] = (BigInt(into[key] ?? '0') + BigInt(amount)).toString()
  }
  for (const { key, value } of store.stats.getRange()) {
    const bare = decodeBareHexKey(key as Buffer)
    const address = `0x${bare}` as Hex
    const figures = value as Required<Figures>
    const { symbol, decimals } = tokenOf(bare)
    stats.totalSettlements += figures.count
    sum(stats.totalVolume, symbol, figures.volume)
    sum(stats.totalFees, symbol, figures.fees)
    stats.byToken[address] = {
      symbol,
      decimals,
      settlements: figures.count,
      volume: figures.volume,
      fees: figures.fees,
      last24h: { settlements: 0, volume: '0' },
    }
  }

  const fromHour = Math.floor(nowSeconds / HOUR_SECONDS) - 23
  for (const { key, value } of store.hours.getRange({ start: hourStartKey(fromHour) })) {
    const address = `0x${decodeHourKey(key as Buffer).token}` as Hex
    const figures = value as Figures
    const perToken = stats.byToken[address]
    if (!perToken) continue
    stats.last24h.settlements += figures.count
    sum(stats.last24h.volume, perToken.symbol, figures.volume)
    perToken.last24h.settlements += figures.count
    perToken.last24h.volume = (BigInt(perToken.last24h.volume) + BigInt(figures.volume)).toString()
  }
  return stats
}
