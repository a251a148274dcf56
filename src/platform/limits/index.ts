/**
 * Limits every server applies to its clients: token buckets for message rates, connections per address.
 */
export * from './connections-per-address.js'
export * from './token-bucket.js'
export * from './buckets-per-address.js'
export * from './shared-connections.js'
