/**
 * Replay for live feeds: the settlements matching a filter inside [from, end) of primary keys, in chain
 * order, a chunk at a time. The live layer calls it on the main thread so that the last chunk and the
 * switch to live delivery happen in one synchronous turn (no settlement can be published in between).
 */
import { decodePk, encodePk, keyAfter, type Position } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { StoredSettlement } from '../store/index.js'
import { amountInRange, type SettlementFilter } from './events-query.js'
import { fieldFilters, indexCount, indexWalk, matchesAll, settlementReader, type FieldFilter } from './field-index.js'
import { primaryWalk } from './primary-walk.js'

const MAX_LOG_INDEX = 0xffff_ffff

/** The position just before one: resuming after it includes the position itself again. */
export function positionBefore(p: Position): Position {
  if (p.logIndex > 0) return { blockNumber: p.blockNumber, logIndex: p.logIndex - 1 }
  return p.blockNumber > 0 ? { blockNumber: p.blockNumber - 1, logIndex: MAX_LOG_INDEX } : p
}

/** The replay bound at a position: a replay from it includes the position; the live layer keeps bounds, never builds them. */
export const boundAt = (p: Position): Buffer => encodePk(p.blockNumber, p.logIndex)

/** The replay bound just after a position: a replay from it starts with what follows. */
export const boundAfter = (p: Position): Buffer => keyAfter(p)

/** The key after the newest stored settlement: where a replay that starts now ends. */
export function storedEnd(store: Store): Buffer {
  for (const key of store.events.getKeys({ reverse: true, limit: 1 })) return keyAfter(decodePk(key))
  return encodePk(0, 0)
}

export interface ReplayChunk {
  /** Matching settlements, ascending. */
  settlements: StoredSettlement[]
  /** Where the next chunk starts; `undefined` when the range is done. */
  next: Buffer | undefined
  /** Candidates read: the cost of the chunk. */
  scanned: number
}

/**
 * Up to `limit` settlements matching `filter` with `from <= key < end`, ascending, reading at most
 * `maxScanned` candidates: filters that rarely meet (a payer and a token it never pays in) would
 * otherwise read every candidate in the range before returning.
 */
export function matchingInRange(store: Store, filter: SettlementFilter, from: Buffer, end: Buffer, limit: number, maxScanned: number): ReplayChunk {
  const settlements: StoredSettlement[] = []
  let scanned = 0
  if (Buffer.compare(from, end) >= 0) return { settlements, next: undefined, scanned }
  const range = { low: from, high: end, bounded: true }
  const filters = fieldFilters(filter)
  if (filters.length === 0) {
    for (const s of primaryWalk(store, range, 'asc')) {
      scanned++
      if ((amountInRange(s.amount, filter) && settlements.push(s) >= limit) || scanned >= maxScanned) return { settlements, next: keyAfter(s), scanned }
    }
    return { settlements, next: undefined, scanned }
  }
  // Drive by the most selective field: two seeks per field give each one's count in the range.
  const [driver, ...rest] = filters.map((f) => ({ f, n: indexCount(store, f, range) })).sort((a, b) => a.n - b.n).map(({ f }) => f) as [FieldFilter, ...FieldFilter[]]
  const read = settlementReader(store, driver)
  for (const value of indexWalk(store, driver, range, 'asc')) {
    scanned++
    const s = read(value)
    if ((matchesAll(s, rest) && amountInRange(s.amount, filter) && settlements.push(s) >= limit) || scanned >= maxScanned) return { settlements, next: keyAfter(s), scanned }
  }
  return { settlements, next: undefined, scanned }
}
