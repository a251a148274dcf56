/**
 * Reading the store for the API: pages of events, lookups, replays, the head and stats, run on the main
 * thread or the pool. The API reads through here only: nothing of the store is handed on (the api names
 * the store's types itself, test/layout/check-layering.ts), its cursors and renders are query's own.
 */
export * from './cursors.js'
export * from './events-query.js'
export * from './export-rows.js'
export * from './field-values.js'
export * from './key-views.js'
export * from './query-executor.js'
export * from './query-task.js'
export * from './replay.js'
export * from './settlement-text.js'
export * from './stats-json.js'
export { statsWalkSize, type StatsFilter } from './stats-plan.js'
export { runEventsQuery } from './run-events-query.js'
export { fieldFilters, indexCount, indexWalk, settlementReader, type FieldFilter } from './field-index.js'
export { keyRange, type KeyRange } from './block-range.js'
export { isCheap } from './query-cost.js'
export * from './store-summary.js'
export * from './token-cache.js'
export * from './write-in-flight.js'

