/**
 * Indexing the settlement contract's events: backfill in parallel ranges, head following, reorgs.
 */
export * from './chain-source.js'
export * from './indexer.js'
export * from './range-pool.js'
export { PERMITTED_TRANSFER_TOPIC } from './decode-settlement-log.js'
