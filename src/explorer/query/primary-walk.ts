/**
 * Walks of the primary database (events in key order) over a key range, for the query paths that read it
 * without an index: event pages, amount ranges, exports, replays and stats. Kept apart from
 * run-events-query.ts so that the amount path it dispatches to can walk them without importing it back.
 */
import type { Transaction } from 'lmdb'
import { readSettlement, type StoredSettlement } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { KeyRange } from './block-range.js'
import { firstOf } from './first-of.js'

/** Primary keys inside [low, high), in order; read in `transaction` when given. */
export function* primaryKeys(store: Store, range: KeyRange, order: 'asc' | 'desc', transaction?: Transaction): Generator<Buffer> {
  if (order === 'asc') {
    yield* store.events.getKeys({ start: range.low, end: range.high, transaction })
    return
  }
  // Reverse ranges start inclusive; `high` is exclusive, so a key equal to it is skipped.
  for (const key of store.events.getKeys({ start: range.high, reverse: true, transaction })) {
    if (Buffer.compare(key, range.low) < 0) return
    if (!key.equals(range.high)) yield key
  }
}

/** Where the record of each settlement inside [low, high) is (the primary database's values), in chain order. */
export function* primaryPointers(store: Store, range: KeyRange): Generator<Buffer> {
  for (const { value } of store.events.getRange({ start: range.low, end: range.high })) yield value
}

export function* primaryWalk(store: Store, range: KeyRange, order: 'asc' | 'desc'): Generator<StoredSettlement> {
  for (const key of primaryKeys(store, range, order)) yield readSettlement(store, key)!
}

export function primaryCount(store: Store, range: KeyRange): number {
  const first = firstOf(primaryWalk(store, range, 'asc'))
  if (!first) return 0
  const last = firstOf(primaryWalk(store, range, 'desc'))!
  return last.ordinal - first.ordinal + 1
}
