/**
 * Charges (PROCESSOR.md §4) and their refunds (issue 23): their JSON, as the merchant API answers and
 * webhooks carry it, and their state machines, which write each change's webhook to the outbox in the
 * same transaction.
 */
export * from './change-charge.js'
export * from './change-refund.js'
export * from './render-charge.js'
export * from './render-refund.js'
