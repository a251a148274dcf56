/**
 * How filtered statistics are summed: from the hour buckets kept while indexing (store/buckets.ts) for
 * every hour the bounds cover whole, and by walking the matching settlements where they do not.
 *
 * - No field filter, a recipient, an acquirer id or an address (each with or without a token), and no
 *   amount bounds: buckets. Only the hours the bounds cut through are walked: an unaligned
 *   `fromTimestamp` or `toTimestamp`, and the hour of the first (last) settlement inside `fromBlock`
 *   (`toBlock`), since timestamps never decrease with block number. A range aligned to the hour walks
 *   nothing. An address is its recipient buckets plus a walk of what it paid to others (payers pay
 *   rarely: there are no payer buckets).
 * - A payer, amount bounds, or two or more field filters: the matching settlements are walked, driven
 *   by the most selective index (exact counts from ordinals say which; with a token and amount bounds,
 *   the token's amount index when its count for the bounds is smaller). The walk is bounded: a request
 *   whose walks would pass `STATS_MAX_WALK` candidates is refused before it starts (`statsWalkSize`).
 */
import { amountRangePks, countAmountRange, HOUR_SECONDS, MAX_AMOUNT, readBuckets, blockEndPk, blockStartPk, encodeHexKey, type Store, readSettlement, recordMatcher, RecordGroup, storedFigures } from '../store/index.js'
import { keyRange, type KeyRange } from './block-range.js'
import { amountInRange, type EventsQuery, type SettlementFilter } from './events-query.js'
import { fieldFilters, indexCount, indexPks, indexWalk, recordFilter, recordReader, type FieldFilter } from './field-index.js'
import { primaryPointers, primaryWalk } from './primary-walk.js'

/** `GET /stats` filters, validated: field values lowercase, amount bounds canonical. */
export interface StatsFilter extends Omit<SettlementFilter, 'orderReference'> {
  fromBlock?: number
  toBlock?: number
  fromTimestamp?: number
  toTimestamp?: number
}

const MAX_TIMESTAMP = 2 ** 32 - 2
const hourOf = (timestamp: number) => Math.floor(timestamp / HOUR_SECONDS)

/** What a bucket, or a walked settlement, adds: `token` is lowercase hex without 0x. */
export type FiguresSink = (hour: number, token: string, count: number, volume: bigint, fees: bigint) => void

/**
 * A part of the request summed by walking: the filter with its own timestamp bounds, and a recipient
 * to leave out (an address's own payments to itself, which its recipient buckets hold already).
 */
type Walk = StatsFilter & { fromTimestamp: number; toTimestamp: number; notRecipient?: string }

interface Plan {
  walks: Walk[]
  /** Whole hours read from buckets, inclusive. */
  hours?: { from: number; to: number }
}

/** The bucket family that answers, or `undefined` when the request must be walked. */
function bucketField(f: StatsFilter): 'all' | 'recipient' | 'address' | 'acquirerId' | undefined {
  if (f.minAmount !== undefined || f.maxAmount !== undefined) return undefined
  const fields = (['payer', 'recipient', 'address', 'acquirerId'] as const).filter((field) => f[field] !== undefined)
  if (fields.length > 1 || fields[0] === 'payer') return undefined
  return fields[0] ?? 'all'
}

/**
 * The request as the buckets see it: an address as a recipient (its edge hours walked as such), plus
 * what it paid to others over the whole range.
 */
function asBucketed(f: StatsFilter): { bucketed: StatsFilter; extra: (low: number, high: number) => Walk[] } {
  if (f.address === undefined) return { bucketed: f, extra: () => [] }
  const { address, ...rest } = f
  return {
    bucketed: { ...rest, recipient: address },
    extra: (low, high) => [{ ...rest, payer: address, notRecipient: address.slice(2), fromTimestamp: low, toTimestamp: high }],
  }
}

/** The timestamp of the first (`asc`) or last (`desc`) settlement inside a block bound; `undefined` when none. */
function boundaryTimestamp(store: Store, block: number, order: 'asc' | 'desc'): number | undefined {
  const options = order === 'asc' ? { start: blockStartPk(block), limit: 1 } : { start: blockEndPk(block), reverse: true, limit: 2 }
  for (const key of store.events.getKeys(options)) {
    if (order === 'desc' && key.equals(blockEndPk(block))) continue
    return readSettlement(store, key)!.timestamp
  }
  return undefined
}

/** `undefined` when the bounds exclude every settlement. */
function plan(store: Store, f: StatsFilter): Plan | undefined {
  let low = f.fromTimestamp ?? 0
  let high = f.toTimestamp ?? MAX_TIMESTAMP
  if (bucketField(f) === undefined) return low <= high ? { walks: [{ ...f, fromTimestamp: low, toTimestamp: high }] } : undefined

  const { bucketed, extra } = asBucketed(f)
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
  const walks: Walk[] = extra(low, high)
  if (low < fullFrom * HOUR_SECONDS) walks.push({ ...bucketed, fromTimestamp: low, toTimestamp: fullFrom * HOUR_SECONDS - 1 })
  if (high >= (fullTo + 1) * HOUR_SECONDS) walks.push({ ...bucketed, fromTimestamp: (fullTo + 1) * HOUR_SECONDS, toTimestamp: high })
  return { walks, hours: { from: fullFrom, to: fullTo } }
}

/** A walk's key range and the index that drives it (the most selective), with its exact candidate count. */
/** A walk's driver: a field index, the token's amount index (`byAmount`), or neither (every settlement in the range). */
interface Driver {
  range: KeyRange
  driver?: FieldFilter
  /** The token's settlements inside the amount bounds, in amount order (store/amounts.ts); its count covers all time. */
  byAmount?: { token: Buffer; min: bigint; max: bigint }
  rest: FieldFilter[]
  candidates: number
}

function walkDriver(store: Store, w: Walk): Driver | undefined {
  const range = keyRange(store, w as EventsQuery)
  if (!range) return undefined
  const filters = fieldFilters(w as EventsQuery)
  const counted = filters.map((filter) => ({ filter, count: indexCount(store, filter, range) }))
  counted.sort((a, b) => a.count - b.count)
  const [driver, ...rest] = counted
  const byField: Driver = driver ? { range, driver: driver.filter, rest: rest.map((r) => r.filter), candidates: driver.count } : { range, rest: [], candidates: settlementsIn(store, range) }
  if (w.token === undefined || (w.minAmount === undefined && w.maxAmount === undefined)) return byField
  const byAmount = { token: encodeHexKey(w.token), min: BigInt(w.minAmount ?? '0'), max: w.maxAmount === undefined ? MAX_AMOUNT : BigInt(w.maxAmount) }
  const candidates = countAmountRange(store, byAmount.token, byAmount.min, byAmount.max)
  if (candidates >= byField.candidates) return byField
  return { range, byAmount, rest: filters.filter((f) => f.field !== 'token'), candidates }
}

/** Settlements a walk reads together (store/record-group.ts): a statistics walk reads them all, in any order. */
const GROUP_SIZE = 32_768

/**
 * Calls `each` with the stored record of every settlement of the driver's inside its key range that
 * matches the walk's other filters, tested on its bytes (a sum decodes only its figures, `storedFigures`),
 * in no particular order; a record is valid during its call only. A recipient's records are read from
 * its runs in order, others in groups run by run.
 */
function eachRecord(store: Store, w: Walk, d: Driver, each: (record: Buffer) => void): void {
  const matchesRest = recordFilter(store, d.rest)
  const notRecipient = w.notRecipient === undefined ? undefined : recordMatcher(store, 'recipient', Buffer.from(w.notRecipient, 'hex'))
  const visit = (_: number, record: Buffer) => {
    if (matchesRest(record) && !notRecipient?.(record)) each(record)
  }
  if (d.driver?.field === 'recipient') {
    const read = recordReader(store, d.driver)
    for (const value of indexWalk(store, d.driver, d.range, 'asc')) visit(0, read(value))
    return
  }
  const group = new RecordGroup(GROUP_SIZE)
  const flush = () => group.visit(store, visit)
  if (!d.driver && !d.byAmount) {
    for (const pointer of primaryPointers(store, d.range)) {
      group.addPointer(pointer)
      if (group.full) flush()
    }
    return flush()
  }
  const pks = d.driver ? indexPks(indexWalk(store, d.driver, d.range, 'asc')) : amountRangePks(store, d.byAmount!.token, d.byAmount!.min, d.byAmount!.max)
  for (const pk of pks) {
    if (d.byAmount && (Buffer.compare(pk, d.range.low) < 0 || Buffer.compare(pk, d.range.high) >= 0)) continue
    group.add(store, pk)
    if (group.full) flush()
  }
  flush()
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
  if (p.hours) sumBuckets(store, asBucketed(f).bucketed, p.hours.from, p.hours.to, sink)
  for (const w of p.walks) sumWalk(store, w, sink)
}

function sumWalk(store: Store, w: Walk, sink: FiguresSink): void {
  const d = walkDriver(store, w)
  if (!d) return
  eachRecord(store, w, d, (record) => {
    const { timestamp, token, amount, fee } = storedFigures(store, record)
    if (amountInRange(amount, w)) sink(hourOf(timestamp), token, 1, BigInt(amount), BigInt(fee))
  })
}

/** Buckets of hours from..to of the request's family (`asBucketed`: no address here), one token or all. */
function sumBuckets(store: Store, f: StatsFilter, from: number, to: number, sink: FiguresSink): void {
  const field = bucketField(f) as 'all' | 'recipient' | 'acquirerId'
  const token = f.token?.slice(2)
  const value = field === 'all' ? Buffer.alloc(0) : encodeHexKey(f[field]!)
  for (const b of readBuckets(store, field, value, from, to)) {
    if (token === undefined || b.token === token) sink(b.hour, b.token, b.count, b.volume, b.fees)
  }
}
