/**
 * The explorer's LMDB store: key layouts (`keys.ts`), records, commits, rollbacks, statistics, cursors.
 */
export * from './amounts.js'
export * from './commit-batch.js'
export * from './cursor.js'
export * from './encoded-batch.js'
export * from './keys.js'
export * from './meta.js'
export * from './open-store.js'
export * from './record-json.js'
export * from './record.js'
export * from './rollback.js'
export * from './settlement-writes.js'
export * from './stats.js'
export * from './buckets.js'
export * from './covering-runs.js'
export { decodeStored, recordMatcher, storedAmount, storedFigures, storedOfTx } from './compact-record.js'
export * from './store-error.js'
