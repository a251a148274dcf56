/**
 * How filtered statistics are summed: from the hour buckets kept while indexing (store/buckets.ts) for
 * every hour the bounds cover whole, and by walking the matching settlements where they do not.
 *
 * - At most one of payer, recipient, address, acquirerId (with or without a token) and no amount
 *   bounds: buckets. Only the hours the bounds cut through are walked: an unaligned `fromTimestamp` or
 *   `toTimestamp`, and the hour of the first (last) settlement inside `fromBlock` (`toBlock`), since
 *   timestamps never decrease with block number. A range aligned to the hour walks nothing.
 * - Amount bounds, or two or more of those fields: the matching settlements are walked, driven by the
 *   most selective index (exact counts from ordinals say which). The walk is bounded: a request whose
 *   walk would pass `MAX_STATS_WALK` candidates is refused before it starts (`statsWalkSize`).
 */
import { decodeRecord, fieldHex, HOUR_SECONDS, readBuckets, blockEndPk, blockStartPk, encodeHexKey, type BucketTag, type Store } from '../store/index.js'
import { keyRange, type KeyRange } from './block-range.js'
import { amountInRange, type EventsQuery, type SettlementFilter } from './events-query.js'
import { fieldFilters, indexCount, indexWalk, load, matchesAll, type FieldFilter } from './field-index.js'
import { primaryWalk } from './run-events-query.js'

/** `GET /stats` filters, validated: field values lowercase, amount bounds canonical. */
export interface StatsFilter extends Omit<SettlementFilter, 'orderReference'> {
  fromBlock?: number
  toBlock?: number
  fromTimestamp?: number
  toTimestamp?: number
}

/** Settlements a filtered statistic may walk (about 1 µs each on this machine; bench/RESULTS.md). */
export const MAX_STATS_WALK = 1_000_000

const MAX_TIMESTAMP = 2 ** 32 - 2
const hourOf = (timestamp: number) => Math.floor(timestamp / HOUR_SECONDS)

/** What a bucket, or a walked settlement, adds: `token` is lowercase hex without 0x. */
export type FiguresSink = (hour: number, token: string, count: number, volume: bigint, fees: bigint) => void

/** A part of the request summed by walking: the filter with its own timestamp bounds. */
type Walk = StatsFilter & { fromTimestamp: number; toTimestamp: number }

interface Plan {
  walks: Walk[]
  /** Whole hours read from buckets, inclusive. */
  hours?: { from: number; to: number }
}

/** The field (at most one) whose buckets answer, or `undefined` when the request must be walked. */
function bucketField(f: StatsFilter): 'all' | 'payer' | 'recipient' | 'address' | 'acquirerId' | undefined {
  if (f.minAmount !== undefined || f.maxAmount !== undefined) return undefined
  const fields = (['payer', 'recipient', 'address', 'acquirerId'] as const).filter((field) => f[field] !== undefined)
  if (fields.length > 1) return undefined
  return fields[0] ?? 'all'
}

/** The timestamp of the first (`asc`) or last (`desc`) settlement inside a block bound; `undefined` when none. */
function boundaryTimestamp(store: Store, block: number, order: 'asc' | 'desc'): number | undefined {
  const options = order === 'asc' ? { start: blockStartPk(block), limit: 1 } : { start: blockEndPk(block), reverse: true, limit: 2 }
  for (const { key, value } of store.events.getRange(options)) {
    if (order === 'desc' && (key as Buffer).equals(blockEndPk(block))) continue
    return decodeRecord(key as Buffer, value as Buffer).timestamp
  }
  return undefined
}

/** `undefined` when the bounds exclude every settlement. */
function plan(store: Store, f: StatsFilter): Plan | undefined {
  let low = f.fromTimestamp ?? 0
  let high = f.toTimestamp ?? MAX_TIMESTAMP
  if (bucketField(f) === undefined) return low <= high ? { walks: [{ ...f, fromTimestamp: low, toTimestamp: high }] } : undefined

  let fullFrom = Math.ceil(low / HOUR_SECONDS)
  let fullTo = hourOf(high + 1) - 1
  if (f.fromBlock !== undefined) {
    const first = boundaryTimestamp(store, f.fromBlock, 'asc')
    if (first === undefined) return undefined
    low = Math.max(low, first)
    fullFrom = Math.max(fullFrom, hourOf(first) + 1)
  }
  if (f.toBlock !== undefined) {
    const last = boundaryTimestamp(store, f.toBlock, 'desc')
    if (last === undefined) return undefined
    high = Math.min(high, last)
    fullTo = Math.min(fullTo, hourOf(last) - 1)
  }
  if (low > high) return undefined
  if (fullFrom > fullTo) return { walks: [{ ...f, fromTimestamp: low, toTimestamp: high }] }
  const walks: Walk[] = []
  if (low < fullFrom * HOUR_SECONDS) walks.push({ ...f, fromTimestamp: low, toTimestamp: fullFrom * HOUR_SECONDS - 1 })
  if (high >= (fullTo + 1) * HOUR_SECONDS) walks.push({ ...f, fromTimestamp: (fullTo + 1) * HOUR_SECONDS, toTimestamp: high })
  return { walks, hours: { from: fullFrom, to: fullTo } }
}

/** A walk's key range and the index that drives it (the most selective), with its exact candidate count. */
function walkDriver(store: Store, w: Walk): { range: KeyRange; driver?: FieldFilter; rest: FieldFilter[]; candidates: number } | undefined {
  const range = keyRange(store, w as EventsQuery)
  if (!range) return undefined
  const counted = fieldFilters(w as EventsQuery).map((filter) => ({ filter, count: indexCount(store, filter, range) }))
  counted.sort((a, b) => a.count - b.count)
  const [driver, ...rest] = counted
  if (!driver) return { range, rest: [], candidates: settlementsIn(store, range) }
  return { range, driver: driver.filter, rest: rest.map((r) => r.filter), candidates: driver.count }
}

/** Settlements inside a key range, from the ordinals of the first and the last (two seeks). */
function settlementsIn(store: Store, range: KeyRange): number {
  const first = primaryWalk(store, range, 'asc').next()
  const last = primaryWalk(store, range, 'desc').next()
  return first.done || last.done ? 0 : last.value.ordinal - first.value.ordinal + 1
}

/** How many settlements answering this request reads one by one (0 when buckets answer it all). */
export function statsWalkSize(store: Store, f: StatsFilter): number {
  let size = 0
  for (const w of plan(store, f)?.walks ?? []) size += walkDriver(store, w)?.candidates ?? 0
  return size
}

/** Feeds every matching settlement's figures to `sink`, by hour and token. */
export function sumStats(store: Store, f: StatsFilter, sink: FiguresSink): void {
  const p = plan(store, f)
  if (!p) return
  if (p.hours) sumBuckets(store, f, p.hours.from, p.hours.to, sink)
  for (const w of p.walks) sumWalk(store, w, sink)
}

function sumWalk(store: Store, w: Walk, sink: FiguresSink): void {
  const d = walkDriver(store, w)
  if (!d) return
  const settlements = d.driver ? mapWalk(indexWalk(store, d.driver, d.range, 'asc'), (value) => load(store, value)) : primaryWalk(store, d.range, 'asc')
  for (const s of settlements) {
    if (!matchesAll(s, d.rest) || !amountInRange(s.amount, w)) continue
    sink(hourOf(s.timestamp), fieldHex(s, 'token'), 1, BigInt(s.amount), BigInt(s.fee))
  }
}

function* mapWalk<T, U>(items: Iterable<T>, map: (item: T) => U): Generator<U> {
  for (const item of items) yield map(item)
}

/** Buckets of hours from..to; `address` is payer + recipient − self-payments, so a self-payment counts once. */
function sumBuckets(store: Store, f: StatsFilter, from: number, to: number, sink: FiguresSink): void {
  const field = bucketField(f)!
  const token = f.token?.slice(2)
  const read = (tag: BucketTag, value: Buffer, sign: 1 | -1) => {
    for (const b of readBuckets(store, tag, value, from, to)) {
      if (token === undefined || b.token === token) sink(b.hour, b.token, sign * b.count, sign === 1 ? b.volume : -b.volume, sign === 1 ? b.fees : -b.fees)
    }
  }
  if (field === 'all') return read('all', Buffer.alloc(0), 1)
  const value = encodeHexKey(f[field]!)
  if (field !== 'address') return read(field, value, 1)
  read('payer', value, 1)
  read('recipient', value, 1)
  read('selfPayment', value, -1)
}
