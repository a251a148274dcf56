/**
 * Payables — charges (PROCESSOR.md §4) and their refunds (issue 23) — as one state machine parameterised
 * by kind: each kind's transition table, the one path that changes a payable and writes its webhook to
 * the outbox in the same transaction, and their JSON, as the merchant API answers and webhooks carry it.
 */
export * from './charge-kind.js'
export * from './payable-kind.js'
export * from './refund-kind.js'
export * from './render-payable.js'
