/**
 * Decides where a query runs. A page with zero or one field filter costs a few seeks plus `limit`
 * reads (tens of µs), less than a round trip to a worker, so it is answered on the server thread and
 * synchronously — which also keeps HTTP pipelining working, since uWS aborts a pipelined request
 * whose predecessor is still pending. Only intersections whose smallest candidate set is large go
 * to the pool, where a long walk cannot stall other requests.
 */
import { HOUR_SECONDS, type Store } from '../store/index.js'
import { keyRange } from './block-range.js'
import type { QueryTask } from './query-task.js'
import { fieldFilters, indexCount } from './field-index.js'
import { amountBounds, amountPlan, usesAmountIndex } from './amount-query.js'
import { statsWalkSize } from './stats-plan.js'

/** Candidates an intersection may walk on the server thread (about 1 µs each). */
export const INLINE_CANDIDATES = 2000
/** Hours of buckets a statistic may read on the server thread (a few hundred µs per month and token). */
export const INLINE_HOURS = 2000

export function isCheap(store: Store, task: QueryTask, inlineCandidates = INLINE_CANDIDATES): boolean {
  if (task.kind === 'first') return true
  // Statistics read a bucket per hour and token, and walk only what buckets cannot answer: inline when
  // both are small (a month is 720 hours), in the pool when the span is long or unbounded.
  if (task.kind === 'stats' || task.kind === 'series') {
    const f = task.kind === 'stats' ? task.filter : task.query
    const hours = f.fromTimestamp === undefined || f.toTimestamp === undefined ? Infinity : (f.toTimestamp - f.fromTimestamp) / HOUR_SECONDS
    return hours <= INLINE_HOURS && statsWalkSize(store, f) <= inlineCandidates
  }
  const q = task.query
  const filters = fieldFilters(q)
  const amounts = amountBounds(q) !== undefined
  if (filters.length <= 1 && !amounts) return true
  const range = keyRange(store, q)
  if (!range) return true
  if (amounts && usesAmountIndex(filters)) return amountPlan(store, q, range, filters[0]).cost <= inlineCandidates
  let smallest = Number.POSITIVE_INFINITY
  for (const filter of filters) smallest = Math.min(smallest, indexCount(store, filter, range))
  return smallest <= inlineCandidates
}
