/**
 * The query engine behind `GET /events`: picks the most selective index, walks it in key order from
 * the cursor, checks the remaining filters on each candidate, and renders the page as JSON text.
 * Totals come from ordinals (two seeks, six for `address`; see field-index.ts) for zero or one field
 * filter; with several, the smallest candidate set is walked, at most `maxWalk` candidates of it
 * (EVENTS_MAX_WALK): past that the total is a lower bound, said with `"totalRelation":"gte"`
 * (Elasticsearch's `hits.total.relation`), and a page whose matches lie further than the walk reaches
 * ends early, with a cursor at the last candidate read, from which the next page goes on (a keyset
 * page, as DynamoDB's `LastEvaluatedKey` after its read limit). A recipient alone reads its covering
 * runs (covered-page.ts) instead of the index and the primary database.
 */
import { decodePk, encodePk, indexValuePk, keyAfter, storedAmount } from '../store/index.js'
import { readCount } from '../store/index.js'
import type { Store } from '../store/index.js'
import { keyRange, type KeyRange } from './block-range.js'
import { amountInRange, type EventsQuery } from './events-query.js'
import { BYTES_PER_SETTLEMENT, PageWriter } from './page-writer.js'
import { fieldFilters, indexCount, indexWalk, recordFilter, testedWalk, type FieldFilter } from './field-index.js'
import type { TokenCache } from './token-cache.js'
import { coveredPage, isCovered } from './covered-page.js'
import { amountBounds, amountQuery, usesAmountIndex } from './amount-query.js'
import { primaryCount, primaryKeys } from './primary-walk.js'

/** The benchmarks (bench/sections/query-latency.ts) time these through this module. */
export { fieldFilters, indexCount, indexWalk, type FieldFilter }

const EMPTY_PAGE = Buffer.from('{"events":[],"nextCursor":null,"total":0}')

/** The page as JSON bytes; `maxWalk` bounds the candidates an intersection reads (twice at most: for the total, for the page). */
export function runEventsQuery(store: Store, tokens: TokenCache, q: EventsQuery, maxWalk = Number.POSITIVE_INFINITY): Buffer {
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
      const walked = intersect(store, driver, rest, range, page, q, maxWalk)
      return renderPage(store, tokens, walked.found, q.limit, walked.total, walked.resumeAfter, walked.totalIsLowerBound)
    }
  }
  return renderPage(store, tokens, found, q.limit, total)
}

/** The range the page may come from: the query's range narrowed by the cursor. */
export function pageBounds(range: KeyRange, q: Pick<EventsQuery, 'after' | 'order'>): KeyRange | undefined {
  if (!q.after) return range
  const at = encodePk(q.after.blockNumber, q.after.logIndex)
  const page = { ...range }
  if (q.order === 'asc') {
    const next = keyAfter(q.after)
    if (Buffer.compare(next, page.low) > 0) page.low = next
  } else if (Buffer.compare(at, page.high) < 0) page.high = at
  return Buffer.compare(page.low, page.high) < 0 ? page : undefined
}

/** Primary keys only: the page renders from the cache and reads values only on a miss. */
function primaryPage(store: Store, range: KeyRange, order: 'asc' | 'desc', take: number): Buffer[] {
  const found: Buffer[] = []
  for (const key of primaryKeys(store, range, order)) if (found.push(key) >= take) break
  return found
}

function indexPage(store: Store, driver: FieldFilter, range: KeyRange, order: 'asc' | 'desc', take: number): Buffer[] {
  const found: Buffer[] = []
  for (const value of indexWalk(store, driver, range, order)) if (found.push(indexValuePk(value)) >= take) break
  return found
}

/**
 * Several field filters, or field filters and amount bounds: one walk of the smallest candidate set, from
 * the range's start, gives both the exact total and the page, when it ends within `maxWalk` candidates.
 * The page's candidates are a suffix of that walk's (the cursor only moves the start), so a walk cut
 * off inside them still gives the page's first matches; cut off before them, a second walk bounded the
 * same way starts at the cursor. A page cut off by a walk continues after the last candidate it read.
 */
function intersect(store: Store, driver: FieldFilter, rest: FieldFilter[], range: KeyRange, page: KeyRange | undefined, q: EventsQuery, maxWalk: number) {
  const amounts = amountBounds(q) !== undefined
  const matchesRest = recordFilter(store, rest)
  const matches = (record: Buffer) => (!amounts || amountInRange(storedAmount(record), q)) && matchesRest(record)
  const inPage = (pk: Buffer) => page !== undefined && Buffer.compare(pk, page.low) >= 0 && Buffer.compare(pk, page.high) < 0
  let found: Buffer[] = []
  let total = 0
  let walked = 0
  let cutOff = false
  let lastInPage: Buffer | undefined
  for (const [pk, matched] of testedWalk(store, driver, indexWalk(store, driver, range, q.order), matches)) {
    if (walked++ >= maxWalk) {
      cutOff = true
      break
    }
    const here = inPage(pk)
    if (here) lastInPage = pk
    if (!matched) continue
    total++
    if (here && found.length <= q.limit) found.push(pk)
  }
  if (!cutOff) return { total, found, totalIsLowerBound: false, resumeAfter: undefined }
  if (page && !lastInPage) {
    // Every page match is also a match the first walk did not count: the lower bound grows by them.
    found = []
    walked = 0
    cutOff = false
    for (const [pk, matched] of testedWalk(store, driver, indexWalk(store, driver, page, q.order), matches)) {
      if (found.length > q.limit) break
      if (walked++ >= maxWalk) {
        cutOff = true
        break
      }
      lastInPage = pk
      if (matched) found.push(pk)
    }
    total += found.length
  }
  const resume = cutOff && found.length <= q.limit
  return { total, found, totalIsLowerBound: true, resumeAfter: resume ? lastInPage : undefined }
}

/**
 * `found` holds up to `limit + 1` primary keys: one more than the page says whether a next page exists.
 * A page a bounded walk cut off continues after `resumeAfter` instead.
 */
function renderPage(store: Store, tokens: TokenCache, found: Buffer[], limit: number, total: number, resumeAfter?: Buffer, totalIsLowerBound = false): Buffer {
  const count = Math.min(found.length, limit)
  const page = new PageWriter(store, tokens, count * BYTES_PER_SETTLEMENT)
  for (let i = 0; i < count; i++) page.settlement(found[i]!)
  const next = resumeAfter ?? (found.length > limit ? found[count - 1] : undefined)
  return page.finish(next && decodePk(next), total, totalIsLowerBound)
}
