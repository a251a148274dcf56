/**
 * The query engine behind `GET /events`: picks the most selective index, walks it in key order from
 * the cursor, checks the remaining filters on each candidate, and renders the page as JSON text.
 * Totals come from ordinals (two seeks) for zero or one field filter; with several, the smallest
 * candidate set is walked once, which bounds the cost by the most selective filter.
 */
import { encodeCursor } from '../store/cursor.js'
import { PK_BYTES, encodeHexKey, encodePk, indexValueOrdinal, indexValuePk, keyAfter } from '../store/keys.js'
import { readCount } from '../store/meta.js'
import { hasOrdinals, indexKeyOf, type Store } from '../store/open-store.js'
import { decodeRecord, settlementJson, type StoredSettlement } from '../store/record.js'
import { keyRange, type KeyRange } from './block-range.js'
import { FILTER_FIELDS, type EventsQuery } from './events-query.js'
import type { TokenCache } from './token-cache.js'

type Field = (typeof FILTER_FIELDS)[number]

export interface FieldFilter {
  field: Field
  key: Buffer
}

const EMPTY_PAGE = '{"events":[],"nextCursor":null,"total":0}'

export function runEventsQuery(store: Store, tokens: TokenCache, q: EventsQuery): string {
  const range = keyRange(store, q)
  if (!range) return EMPTY_PAGE
  const filters: FieldFilter[] = FILTER_FIELDS.filter((f) => q[f] !== undefined).map((f) => ({ field: f, key: encodeHexKey(q[f]!) }))
  const page = pageBounds(range, q)

  let total: number
  let found: StoredSettlement[]
  if (filters.length === 0) {
    total = range.bounded ? primaryCount(store, range) : readCount(store)
    found = page ? primaryPage(store, page, q.order, q.limit + 1) : []
  } else {
    const counted = filters.map((f) => ({ ...f, count: indexCount(store, f, range) }))
    counted.sort((a, b) => a.count - b.count)
    const [driver, ...rest] = counted as [FieldFilter & { count: number }, ...FieldFilter[]]
    if (rest.length === 0) {
      total = driver.count
      found = page ? indexPage(store, driver, page, q.order, q.limit + 1) : []
    } else {
      ;({ total, found } = intersect(store, driver, rest, range, page, q))
    }
  }
  return renderPage(found, q.limit, total, tokens)
}

/** The range the page may come from: the query's range narrowed by the cursor. */
function pageBounds(range: KeyRange, q: EventsQuery): KeyRange | undefined {
  if (!q.after) return range
  const at = encodePk(q.after.blockNumber, q.after.logIndex)
  const page = { ...range }
  if (q.order === 'asc') {
    const next = keyAfter(q.after)
    if (Buffer.compare(next, page.low) > 0) page.low = next
  } else if (Buffer.compare(at, page.high) < 0) page.high = at
  return Buffer.compare(page.low, page.high) < 0 ? page : undefined
}

export function* primaryWalk(store: Store, range: KeyRange, order: 'asc' | 'desc'): Generator<StoredSettlement> {
  if (order === 'asc') {
    for (const { key, value } of store.events.getRange({ start: range.low, end: range.high })) yield decodeRecord(key, value)
    return
  }
  // Reverse ranges start inclusive; `high` is exclusive, so an entry equal to it is skipped.
  for (const { key, value } of store.events.getRange({ start: range.high, reverse: true })) {
    if (Buffer.compare(key, range.low) < 0) return
    if (key.equals(range.high)) continue
    yield decodeRecord(key, value)
  }
}

function primaryPage(store: Store, range: KeyRange, order: 'asc' | 'desc', take: number): StoredSettlement[] {
  const found: StoredSettlement[] = []
  for (const s of primaryWalk(store, range, order)) if (found.push(s) >= take) break
  return found
}

function primaryCount(store: Store, range: KeyRange): number {
  const first = primaryWalk(store, range, 'asc').next()
  if (first.done) return 0
  const last = primaryWalk(store, range, 'desc').next().value as StoredSettlement
  return last.ordinal - first.value.ordinal + 1
}

/** Index values (primary key ‖ ordinal) of one field value inside a key range, in order. */
export function* indexWalk(store: Store, f: FieldFilter, range: KeyRange, order: 'asc' | 'desc'): Generator<Buffer> {
  const db = store.indexes[f.field]
  if (order === 'asc') {
    yield* db.getValues(f.key, { start: range.low, end: range.high })
    return
  }
  // A 10-byte bound sorts before every 14-byte value with the same primary key, so `high` stays exclusive.
  for (const value of db.getValues(f.key, { start: range.high, reverse: true })) {
    if (Buffer.compare(value.subarray(0, PK_BYTES), range.low) < 0) return
    yield value
  }
}

export function indexCount(store: Store, f: FieldFilter, range: KeyRange): number {
  if (!hasOrdinals(f.field)) {
    let count = 0
    for (const _ of indexWalk(store, f, range, 'asc')) count++
    return count
  }
  const last = indexWalk(store, f, range, 'desc').next()
  if (last.done) return 0
  // Unbounded, the first entry's ordinal is 1: one seek instead of two.
  if (!range.bounded) return indexValueOrdinal(last.value)
  const first = indexWalk(store, f, range, 'asc').next().value as Buffer
  return indexValueOrdinal(last.value) - indexValueOrdinal(first) + 1
}

export function load(store: Store, indexValue: Buffer): StoredSettlement {
  const pk = indexValuePk(indexValue)
  return decodeRecord(pk, store.events.get(pk)!)
}

export const matchesAll = (s: StoredSettlement, filters: FieldFilter[]) => filters.every((f) => indexKeyOf(f.field, s).equals(f.key))

function indexPage(store: Store, driver: FieldFilter, range: KeyRange, order: 'asc' | 'desc', take: number): StoredSettlement[] {
  const found: StoredSettlement[] = []
  for (const value of indexWalk(store, driver, range, order)) if (found.push(load(store, value)) >= take) break
  return found
}

/** Several field filters: one walk of the smallest candidate set gives both the exact total and the page. */
function intersect(store: Store, driver: FieldFilter, rest: FieldFilter[], range: KeyRange, page: KeyRange | undefined, q: EventsQuery) {
  const found: StoredSettlement[] = []
  let total = 0
  for (const value of indexWalk(store, driver, range, q.order)) {
    const s = load(store, value)
    if (!matchesAll(s, rest)) continue
    total++
    const pk = value.subarray(0, PK_BYTES)
    const inPage = page && Buffer.compare(pk, page.low) >= 0 && Buffer.compare(pk, page.high) < 0
    if (inPage && found.length <= q.limit) found.push(s)
  }
  return { total, found }
}

function renderPage(found: StoredSettlement[], limit: number, total: number, tokens: TokenCache): string {
  const events = found.slice(0, limit)
  const last = events[events.length - 1]
  const nextCursor = found.length > limit && last ? `"${encodeCursor(last.blockNumber, last.logIndex)}"` : 'null'
  const body = events.map((s) => settlementJson(s, tokens.get(s.token))).join(',')
  return `{"events":[${body}],"nextCursor":${nextCursor},"total":${total}}`
}
