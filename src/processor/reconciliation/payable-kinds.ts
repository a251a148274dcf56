/**
 * What reconciliation needs of each kind of payable beyond its state machine (`charges/`): how a
 * settlement's order reference finds it, where its payments are recorded, who a settlement must pay for
 * it to count, and what a late one does. Every feed item, confirmation, removal and expiry goes through
 * the same code for both kinds (`apply-feed-item.ts`, `confirm-payables.ts`, `expire-payables.ts`), so
 * the hardening of one (lagging node, removal on chain evidence only, restore watch) holds for both.
 */
import type { Hex } from 'viem'
import { chargeKind, refundKind, reportLatePayment, type PayableKind, type PayableRow } from '../charges/index.js'
import { chargePayments, refundPayments, type ChargeRow, type RefundRow } from '../db/index.js'
import type { NewPayment, PaymentQueries, PaymentRow, Sql } from '../db/index.js'
import type { ChainSettlement } from './chain-settlement.js'

export interface ReconcilableRow extends PayableRow {
  orderReference: Hex
  token: Hex
  amount: string
}

export interface ReconcilableKind<Row extends ReconcilableRow = ReconcilableRow> {
  payable: PayableKind<Row, string, string>
  payments: PaymentQueries<PaymentRow, NewPayment>
  /** Who the settlement must pay (a charge's beneficiary, a refund's recipient). */
  recipientOf(row: Row): Hex
  /** What this kind's payments record beyond the common columns. */
  factsOf(row: Row, event: ChainSettlement): object
  /** A settlement after expiry, cancellation or another payment: recorded, and reported where the kind has an event for it. */
  reportLate?(sql: Sql, row: Row, payment: PaymentRow, widgetBaseUrl: string): Promise<void>
}

const charges: ReconcilableKind<ChargeRow> = {
  payable: chargeKind as unknown as PayableKind<ChargeRow, string, string>,
  payments: chargePayments as unknown as PaymentQueries<PaymentRow, NewPayment>,
  recipientOf: (charge) => charge.beneficiary,
  factsOf: (charge, event) => ({ blockTimestamp: new Date(event.timestamp * 1000), acquirerId: event.acquirerId, beforeDeadline: event.timestamp * 1000 <= charge.deadline.getTime() }),
  reportLate: (sql, charge, payment, widgetBaseUrl) => reportLatePayment(sql, charge, payment as Parameters<typeof reportLatePayment>[2], widgetBaseUrl),
}

const refunds: ReconcilableKind<RefundRow> = {
  payable: refundKind as unknown as PayableKind<RefundRow, string, string>,
  payments: refundPayments,
  recipientOf: (refund) => refund.recipient,
  factsOf: () => ({}),
}

/**
 * Every kind, in the order a settlement's order reference and a removed position are looked up. Listed as
 * one type, the kinds' own status unions widen to `string`: each kind's table is typed where it is written
 * (`charges/charge-kind.ts`, `charges/refund-kind.ts`).
 */
export const reconcilableKinds = [charges, refunds] as unknown as readonly ReconcilableKind[]
