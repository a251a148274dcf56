/**
 * The query engine behind `GET /events`: picks the most selective index, walks it in key order from
 * the cursor, checks the remaining filters on each candidate, and renders the page as JSON text.
 * Totals come from ordinals (two seeks, six for `address`; see field-index.ts) for zero or one field
 * filter; with several, the smallest candidate set is walked once, which bounds the cost by the most
 * selective filter. A recipient alone reads its covering runs (covered-page.ts) instead of the index
 * and the primary database.
 */
import type { Transaction } from 'lmdb'
import { decodePk, encodePk, indexValuePk, keyAfter } from '../store/index.js'
import { readCount } from '../store/index.js'
import type { Store } from '../store/index.js'
import { decodeRecord, type StoredSettlement } from '../store/index.js'
import { keyRange, type KeyRange } from './block-range.js'
import type { EventsQuery } from './events-query.js'
import { BYTES_PER_SETTLEMENT, PageWriter } from './page-writer.js'
import { fieldFilters, indexCount, indexWalk, load, matchesAll, type FieldFilter } from './field-index.js'
import { firstOf } from './first-of.js'
import type { TokenCache } from './token-cache.js'
import { coveredPage, isCovered } from './covered-page.js'
import { amountBounds, amountQuery, storedAmountInRange, usesAmountIndex } from './amount-query.js'

/** The benchmarks (bench/sections/query-latency.ts) time these through this module. */
export { fieldFilters, indexCount, indexWalk, load, type FieldFilter }

const EMPTY_PAGE = Buffer.from('{"events":[],"nextCursor":null,"total":0}')

/** The page as JSON bytes. */
export function runEventsQuery(store: Store, tokens: TokenCache, q: EventsQuery): Buffer {
  const range = keyRange(store, q)
  if (!range) return EMPTY_PAGE
  const filters = fieldFilters(q)
  const page = pageBounds(range, q)

  let total: number
  let found: Buffer[]
  const amounts = amountBounds(q) !== undefined
  if (amounts && usesAmountIndex(filters)) {
    ;({ total, found } = amountQuery(store, q, range, page, filters[0]))
  } else if (filters.length === 0) {
    total = range.bounded ? primaryCount(store, range) : readCount(store)
    found = page ? primaryPage(store, page, q.order, q.limit + 1) : []
  } else {
    const counted = filters.map((f) => ({ ...f, count: indexCount(store, f, range) }))
    counted.sort((a, b) => a.count - b.count)
    const [driver, ...rest] = counted as [FieldFilter & { count: number }, ...FieldFilter[]]
    if (rest.length === 0 && !amounts && isCovered(driver)) return coveredPage(store, tokens, driver, page, q.order, q.limit, driver.count)
    if (rest.length === 0 && !amounts) {
      total = driver.count
      found = page ? indexPage(store, driver, page, q.order, q.limit + 1) : []
    } else {
      ;({ total, found } = intersect(store, driver, rest, range, page, q))
    }
  }
  return renderPage(store, tokens, found, q.limit, total)
}

/** The range the page may come from: the query's range narrowed by the cursor. */
export function pageBounds(range: KeyRange, q: EventsQuery): KeyRange | undefined {
  if (!q.after) return range
  const at = encodePk(q.after.blockNumber, q.after.logIndex)
  const page = { ...range }
  if (q.order === 'asc') {
    const next = keyAfter(q.after)
    if (Buffer.compare(next, page.low) > 0) page.low = next
  } else if (Buffer.compare(at, page.high) < 0) page.high = at
  return Buffer.compare(page.low, page.high) < 0 ? page : undefined
}

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

export function* primaryWalk(store: Store, range: KeyRange, order: 'asc' | 'desc'): Generator<StoredSettlement> {
  for (const key of primaryKeys(store, range, order)) yield decodeRecord(key, store.events.getBinaryFast(key)!)
}

/** Primary keys only: the page renders from the cache and reads values only on a miss. */
function primaryPage(store: Store, range: KeyRange, order: 'asc' | 'desc', take: number): Buffer[] {
  const found: Buffer[] = []
  for (const key of primaryKeys(store, range, order)) if (found.push(key) >= take) break
  return found
}

export function primaryCount(store: Store, range: KeyRange): number {
  const first = firstOf(primaryWalk(store, range, 'asc'))
  if (!first) return 0
  const last = firstOf(primaryWalk(store, range, 'desc'))!
  return last.ordinal - first.ordinal + 1
}

function indexPage(store: Store, driver: FieldFilter, range: KeyRange, order: 'asc' | 'desc', take: number): Buffer[] {
  const found: Buffer[] = []
  for (const value of indexWalk(store, driver, range, order)) if (found.push(indexValuePk(value)) >= take) break
  return found
}

/**
 * Several field filters, or field filters and amount bounds: one walk of the smallest candidate set
 * gives both the exact total and the page.
 */
function intersect(store: Store, driver: FieldFilter, rest: FieldFilter[], range: KeyRange, page: KeyRange | undefined, q: EventsQuery) {
  const found: Buffer[] = []
  let total = 0
  const amounts = amountBounds(q) !== undefined
  for (const value of indexWalk(store, driver, range, q.order)) {
    if (amounts && !storedAmountInRange(store, indexValuePk(value), q)) continue
    if (rest.length > 0 && !matchesAll(load(store, value), rest)) continue
    total++
    const pk = indexValuePk(value)
    const inPage = page && Buffer.compare(pk, page.low) >= 0 && Buffer.compare(pk, page.high) < 0
    if (inPage && found.length <= q.limit) found.push(pk)
  }
  return { total, found }
}

/** `found` holds up to `limit + 1` primary keys: one more than the page says whether a next page exists. */
function renderPage(store: Store, tokens: TokenCache, found: Buffer[], limit: number, total: number): Buffer {
  const count = Math.min(found.length, limit)
  const page = new PageWriter(store, tokens, count * BYTES_PER_SETTLEMENT)
  for (let i = 0; i < count; i++) page.settlement(found[i]!)
  return page.finish(found.length > limit ? decodePk(found[count - 1]!) : undefined, total)
}
