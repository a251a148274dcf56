/**
 * Indexing the settlement contract's events: backfill in parallel ranges, head following, reorgs.
 */
export * from './chain-source.js'
export { PERMITTED_TRANSFER_TOPIC, type RawLog } from './decode-settlement-log.js'
export * from './indexer.js'
export * from './range-pool.js'
