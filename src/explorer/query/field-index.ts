/**
 * One field filter's index entries inside a key range: walked in chain order, and counted from
 * ordinals (two seeks) without walking. `address` has no index of its own: it is the union of the
 * payer and the recipient entries of that address, merged by primary key, where a self-payment (in
 * both) comes out once; its count is payer + recipient − self-payments (`idx:selfPayment`), six seeks.
 */
import { compareIndexValuePks, decodeStored, encodeHexKey, indexValueBefore, indexValueOrdinal, indexValuePk, isLowestPk, PK_BYTES, readRecord, RecordGroup, recordMatcher, RunReader } from '../store/index.js'
import { hasOrdinals, type IndexedField, type Store } from '../store/index.js'
import { addressesOf, fieldHex, type StoredSettlement } from '../store/index.js'
import type { Transaction } from 'lmdb'
import type { KeyRange } from './block-range.js'
import { FILTER_FIELDS, type SettlementFilter } from './events-query.js'
import { firstOf } from './first-of.js'

type Field = (typeof FILTER_FIELDS)[number]
type Order = 'asc' | 'desc'

export interface FieldFilter {
  field: Field
  key: Buffer
  /** The same value as lowercase hex without 0x, to compare with stored settlements. */
  hex: string
}

export function fieldFilters(filter: SettlementFilter): FieldFilter[] {
  return FILTER_FIELDS.filter((f) => filter[f] !== undefined).map((f) => ({ field: f, key: encodeHexKey(filter[f]!), hex: filter[f]!.slice(2) }))
}

/**
 * Index values (primary key ‖ ordinal) matching a filter inside a key range, in order, each settlement
 * once; read in `transaction` when given (an export's snapshot), else in the thread's current one.
 */
export function indexWalk(store: Store, f: FieldFilter, range: KeyRange, order: Order, transaction?: Transaction): Generator<Buffer> {
  if (f.field !== 'address') return valuesOf(store, f.field, f.key, range, order, transaction)
  return mergeByPk(valuesOf(store, 'payer', f.key, range, order, transaction), valuesOf(store, 'recipient', f.key, range, order, transaction), order)
}

/** The primary keys of a walk's index values. */
export function* indexPks(values: Iterable<Buffer>): Generator<Buffer> {
  for (const value of values) yield indexValuePk(value)
}

/** The exact number of settlements matching a filter inside a key range. */
export function indexCount(store: Store, f: FieldFilter, range: KeyRange): number {
  if (f.field !== 'address') return countOf(store, f.field, f.key, range)
  return countOf(store, 'payer', f.key, range) + countOf(store, 'recipient', f.key, range) - countOf(store, 'selfPayment', f.key, range)
}

/**
 * The stored record (store/compact-record.ts) of each settlement a walk of `driver`'s index yields,
 * valid until the next read. A recipient's records come from its runs, in the order of its index (the
 * value's ordinal finds each, and one run read serves up to 26); other fields' through the primary
 * database's pointer, two reads each.
 */
export function recordReader(store: Store, driver: FieldFilter): (indexValue: Buffer) => Buffer {
  if (driver.field !== 'recipient') return (value) => readRecord(store, indexValuePk(value))!
  const runs = new RunReader(store, driver.key)
  return (value) => runs.at(indexValueOrdinal(value))!.record()
}

/** The same records decoded for the filters. */
export function settlementReader(store: Store, driver: FieldFilter): (indexValue: Buffer) => StoredSettlement {
  const read = recordReader(store, driver)
  return (value) => decodeStored(store, indexValuePk(value), read(value))
}

/** Candidates a walk tests together at first; each group after doubles, up to the last size. */
const FIRST_GROUP = 64
const LAST_GROUP = 32_768

/**
 * The candidates of a walk in its order, each with whether its stored record passes `test` (a candidate
 * marked `false` passes unread). The records are read in groups, run by run (store/record-group.ts);
 * groups grow from 64 to 32,768 candidates, so a walk that stops early has read at most as much again
 * as it used. Each primary key given is a copy.
 */
export function* testedInGroups(store: Store, candidates: Iterator<[pk: Buffer, check: boolean]>, test: (record: Buffer) => boolean): Generator<[Buffer, boolean]> {
  try {
    let done = false
    for (let capacity = FIRST_GROUP; !done; capacity = Math.min(2 * capacity, LAST_GROUP)) {
      const group = new RecordGroup(capacity)
      const pks = Buffer.allocUnsafe(capacity * PK_BYTES)
      // Per candidate, its position in the group, or -1 when it passes unread.
      const slots = new Int32Array(capacity)
      let n = 0
      while (n < capacity) {
        const next = candidates.next()
        if ((done = next.done === true)) break
        const [pk, check] = next.value
        pks.set(pk, n * PK_BYTES)
        slots[n++] = check ? group.size : -1
        if (check) group.add(store, pk)
      }
      const passed = new Uint8Array(group.size)
      group.visit(store, (i, record) => (passed[i] = test(record) ? 1 : 0))
      for (let i = 0; i < n; i++) yield [pks.subarray(i * PK_BYTES, (i + 1) * PK_BYTES), slots[i]! < 0 || passed[slots[i]!] === 1]
    }
  } finally {
    candidates.return?.()
  }
}

/** The same, each record read when its candidate comes: for a walk that stops early (a page). */
export function* testedOneByOne(store: Store, candidates: Iterable<[pk: Buffer, check: boolean]>, test: (record: Buffer) => boolean): Generator<[Buffer, boolean]> {
  for (const [pk, check] of candidates) yield [pk, !check || test(readRecord(store, pk)!)]
}

/**
 * The settlements of a walk of `driver`'s index (`values`), in its order, each with whether its stored
 * record passes `test`: a recipient's records read from its runs one after another, other fields' in groups.
 */
export function* testedWalk(store: Store, driver: FieldFilter, values: Generator<Buffer>, test: (record: Buffer) => boolean): Generator<[Buffer, boolean]> {
  if (driver.field !== 'recipient') {
    yield* testedInGroups(store, checkedPks(values), test)
    return
  }
  const read = recordReader(store, driver)
  for (const value of values) yield [indexValuePk(value), test(read(value))]
}

function* checkedPks(values: Iterable<Buffer>): Generator<[Buffer, boolean]> {
  for (const value of values) yield [indexValuePk(value), true]
}

/** Whether a stored record matches every filter, compared on its bytes (`recordMatcher`); made once per walk. */
export function recordFilter(store: Store, filters: FieldFilter[]): (record: Buffer) => boolean {
  const checks = filters.map((f) => {
    if (f.field !== 'address') return recordMatcher(store, f.field, f.key)
    const payer = recordMatcher(store, 'payer', f.key)
    const recipient = recordMatcher(store, 'recipient', f.key)
    return (record: Buffer) => payer(record) || recipient(record)
  })
  return (record) => checks.every((check) => check(record))
}

const matches = (s: StoredSettlement, f: FieldFilter) => (f.field === 'address' ? addressesOf(s).includes(f.hex) : fieldHex(s, f.field) === f.hex)

export const matchesAll = (s: StoredSettlement, filters: FieldFilter[]) => filters.every((f) => matches(s, f))

function* valuesOf(store: Store, field: IndexedField, key: Buffer, range: KeyRange, order: Order, transaction?: Transaction): Generator<Buffer> {
  const db = store.indexes[field]
  if (order === 'asc') {
    yield* db.getValues(key, { start: range.low, end: range.high, transaction })
    return
  }
  // A 10-byte bound sorts before every longer value with the same primary key, so `high` stays
  // exclusive, and a value is below `low` exactly when its primary key is (never, from block 0).
  const values = db.getValues(key, { start: range.high, reverse: true, transaction })
  if (isLowestPk(range.low)) {
    yield* values
    return
  }
  for (const value of values) {
    if (indexValueBefore(value, range.low)) return
    yield value
  }
}

function countOf(store: Store, field: IndexedField, key: Buffer, range: KeyRange): number {
  if (!hasOrdinals(field) && range.bounded) {
    let count = 0
    for (const _ of valuesOf(store, field, key, range, 'asc')) count++
    return count
  }
  // Unbounded, LMDB keeps the count of a key's values: no seek at all.
  if (!range.bounded) return store.indexes[field].getValuesCount(key)
  const last = firstOf(valuesOf(store, field, key, range, 'desc'))
  if (!last) return 0
  const first = firstOf(valuesOf(store, field, key, range, 'asc'))!
  return indexValueOrdinal(last) - indexValueOrdinal(first) + 1
}

/**
 * Two walks in the same order as one, by primary key; a primary key in both comes out once. Ending it
 * early ends both walks, so that their cursors let go of their read transaction (an export's chunk).
 */
function* mergeByPk(a: Generator<Buffer>, b: Generator<Buffer>, order: Order): Generator<Buffer> {
  const direction = order === 'asc' ? 1 : -1
  try {
    let x = a.next()
    let y = b.next()
    while (!x.done || !y.done) {
      const cmp = x.done ? 1 : y.done ? -1 : compareIndexValuePks(x.value, y.value) * direction
      if (cmp <= 0) {
        yield x.value as Buffer
        if (cmp === 0) y = b.next()
        x = a.next()
      } else {
        yield y.value as Buffer
        y = b.next()
      }
    }
  } finally {
    a.return(undefined)
    b.return(undefined)
  }
}
