/**
 * A read the query engine answers with JSON text: a page of `/events`, or one settlement by a field.
 * Tasks are plain data so they cross to worker threads unchanged.
 */
import type { Store } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { EventsQuery } from './events-query.js'
import { findFirstSettlement } from './find-settlement.js'
import { runEventsQuery } from './run-events-query.js'
import type { TokenCache } from './token-cache.js'

export type QueryTask = { kind: 'events'; query: EventsQuery } | { kind: 'first'; field: 'txHash' | 'orderReference'; value: Hex }

/** JSON bytes; `undefined` when a single-settlement lookup found nothing. */
export function runQueryTask(store: Store, tokens: TokenCache, task: QueryTask): Uint8Array | undefined {
  return task.kind === 'events' ? runEventsQuery(store, tokens, task.query) : findFirstSettlement(store, tokens, task.field, task.value)
}
