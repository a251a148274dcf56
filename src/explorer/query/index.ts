/**
 * Reading the store for the API: pages of events, lookups, replays, the head and stats, run on the main
 * thread or the pool. The API reads through here only; what it takes of the store itself is below.
 */
export * from './events-query.js'
export * from './export-rows.js'
export * from './key-views.js'
export * from './query-executor.js'
export * from './query-task.js'
export * from './replay.js'
export * from './stats-json.js'
export { statsWalkSize, type StatsFilter } from './stats-plan.js'
export { runEventsQuery } from './run-events-query.js'
export { fieldFilters, indexCount, indexWalk, load, type FieldFilter } from './field-index.js'
export { keyRange, type KeyRange } from './block-range.js'
export { isCheap } from './query-cost.js'
export * from './store-summary.js'
export * from './token-cache.js'

/**
 * The store's words the API speaks, none of them a read: the handle it passes on, positions and their
 * keys and cursors, settlements as the indexer reports them and their JSON, and whether a write is in flight.
 */
export { decodePk, encodePk, keyAfter, type Position } from '../store/index.js'
export { decodeCursor, encodeCursor } from '../store/index.js'
export { addressesOf, fieldHex, settlementJson, type StoredSettlement } from '../store/index.js'
export { settlementWrites, type Store, type WriteCounts } from '../store/index.js'
