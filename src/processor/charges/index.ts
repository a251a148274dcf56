/**
 * Charges (PROCESSOR.md §4): their JSON, as the merchant API answers and webhooks carry it, and their
 * state machine, which writes each change's webhook to the outbox in the same transaction.
 */
export * from './change-charge.js'
export * from './render-charge.js'
