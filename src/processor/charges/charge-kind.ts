/**
 * The charge as a payable (PROCESSOR.md §4): its transition table and its webhooks.
 *
 *   awaiting-payment → confirming → settled
 *   awaiting-payment → expired | canceled
 *   confirming | settled → awaiting-payment   (a reorg took the paying settlement away: charge.reverted)
 *   settled ⇄ partially-refunded ⇄ refunded  (refunds settling or reverted: `refund-kind.ts`, no charge event)
 */
import { chargeQueries, type ChargePaymentRow, type ChargeRow, type Sql } from '../db/index.js'
import { enqueuePayableEvent, transitionTable, type PayableKind } from './payable-kind.js'
import { renderCharge, renderPayment } from './render-payable.js'

export const chargeKind: PayableKind<ChargeRow, ChargeRow['status'], 'awaiting-payment'> = {
  name: 'charge',
  awaiting: 'awaiting-payment',
  // Refunded or not, a charge whose payment a reorg took back is unpaid again (its settled refunds stay counted).
  rules: transitionTable<ChargeRow['status'], 'awaiting-payment'>('charge', 'awaiting-payment', ['confirming', 'settled', 'partially-refunded', 'refunded']),
  queries: chargeQueries,
  render: renderCharge,
  chargeIdOf: (charge) => charge.id,
}

/** `charge.late_payment`: the charge as it is, and the payment that came after expiry, cancellation or another payment. */
export function reportLatePayment(sql: Sql, charge: ChargeRow, payment: ChargePaymentRow, widgetBaseUrl: string): Promise<void> {
  return enqueuePayableEvent(sql, chargeKind, charge, 'charge.late_payment', widgetBaseUrl, { payment: renderPayment(payment) })
}
