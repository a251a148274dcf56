/**
 * Reading the store for the API: pages of events, lookups, replays, run on the main thread or the pool.
 */
export * from './events-query.js'
export * from './key-views.js'
export * from './query-executor.js'
export * from './query-task.js'
export * from './replay.js'
export * from './token-cache.js'
