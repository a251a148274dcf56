/**
 * Limits every server applies to its clients: token buckets for message rates.
 */
export * from './token-bucket.js'
