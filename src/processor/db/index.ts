/**
 * The processor's shared PostgreSQL (PROCESSOR.md §0): the submission queue, merchants and certificates,
 * charges and their payments, the webhook outbox and deliveries, each table's queries in its own file.
 */
export * from './certificates.js'
export * from './charge-payments.js'
export * from './charge-refunds.js'
export * from './charges.js'
export * from './connection-claims.js'
export * from './database-unavailable.js'
export * from './idempotency-keys.js'
export * from './listener.js'
export * from './merchants.js'
export * from './open-database.js'
export * from './payment-links.js'
export * from './reconciliation-cursor.js'
export * from './refunds.js'
export * from './relayer-status.js'
export * from './submissions.js'
export * from './submitter-queue.js'
export * from './webhook-deliveries.js'
export * from './webhook-outbox.js'
export * from './webhook-secrets.js'
export * from './services.js'
