/**
 * A read the query engine answers with JSON text: a page of `/events`, one settlement by a field, or
 * filtered statistics (`/stats`, `/stats/series`; `nowSeconds` fixes `last24h` where the task was made).
 * Tasks are plain data so they cross to worker threads unchanged.
 */
import type { Store } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { EventsQuery } from './events-query.js'
import { findFirstSettlement } from './find-settlement.js'
import { runEventsQuery } from './run-events-query.js'
import { seriesJson, statsJson, type SeriesQuery } from './stats-json.js'
import type { StatsFilter } from './stats-plan.js'
import type { TokenCache } from './token-cache.js'

export type QueryTask =
  /** `maxWalk`: candidates an intersection may read (EVENTS_MAX_WALK); unbounded without it. */
  | { kind: 'events'; query: EventsQuery; maxWalk?: number }
  | { kind: 'first'; field: 'txHash' | 'orderReference'; value: Hex }
  | { kind: 'stats'; filter: StatsFilter; nowSeconds: number }
  | { kind: 'series'; query: SeriesQuery }

/** JSON bytes; `undefined` when a single-settlement lookup found nothing. */
export function runQueryTask(store: Store, tokens: TokenCache, task: QueryTask): Uint8Array | undefined {
  switch (task.kind) {
    case 'events':
      return runEventsQuery(store, tokens, task.query, task.maxWalk)
    case 'first':
      return findFirstSettlement(store, tokens, task.field, task.value)
    case 'stats':
      return statsJson(store, tokens, task.filter, task.nowSeconds)
    case 'series':
      return seriesJson(store, tokens, task.query)
  }
}
