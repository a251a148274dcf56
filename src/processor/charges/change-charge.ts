/**
 * The charge state machine (PROCESSOR.md §4) and its webhooks: every change of a locked charge writes
 * its event to the outbox in the same transaction, with the charge as it now is.
 *
 *   awaiting-payment → confirming → settled
 *   awaiting-payment → expired | canceled
 *   confirming | settled → awaiting-payment   (a reorg took the paying settlement away: charge.reverted)
 *   settled ⇄ partially-refunded ⇄ refunded  (refunds settling or reverted: change-refund.ts, no charge event)
 */
import type { ChargePaymentRow } from '../db/index.js'
import { transitionCharge, type ChargeRow, type ChargeStatus, type ChargeTransition } from '../db/index.js'
import type { Sql } from '../db/index.js'
import { enqueueWebhook, type WebhookType } from '../db/index.js'
import { renderCharge, renderPayment } from './render-charge.js'
import { BaseError } from '../../errors/index.js'

const rules: Record<ChargeTransition['to'], { from: ChargeStatus[]; webhook: WebhookType }> = {
  confirming: { from: ['awaiting-payment'], webhook: 'charge.confirming' },
  settled: { from: ['confirming'], webhook: 'charge.settled' },
  // Refunded or not, a charge whose payment a reorg took back is unpaid again (its settled refunds stay counted).
  'awaiting-payment': { from: ['confirming', 'settled', 'partially-refunded', 'refunded'], webhook: 'charge.reverted' },
  expired: { from: ['awaiting-payment'], webhook: 'charge.expired' },
  canceled: { from: ['awaiting-payment'], webhook: 'charge.canceled' },
}

export const canTransition = (status: ChargeStatus, to: ChargeTransition['to']) => rules[to].from.includes(status)

/** Moves a charge locked by this transaction and enqueues its webhook; returns the charge as changed. */
export async function changeCharge(sql: Sql, charge: ChargeRow, transition: ChargeTransition, widgetBaseUrl: string): Promise<ChargeRow> {
  const rule = rules[transition.to]
  if (!rule.from.includes(charge.status)) throw new BaseError(`charge ${charge.id}: no transition from ${charge.status} to ${transition.to}`, { details: { id: charge.id, from: charge.status, to: transition.to } })
  const changed = await transitionCharge(sql, charge.id, transition)
  await enqueueWebhook(sql, { merchantId: charge.merchantId, chargeId: charge.id, type: rule.webhook, data: renderCharge(changed, widgetBaseUrl) })
  return changed
}

/** `charge.late_payment`: the charge as it is, and the payment that came after expiry, cancellation or another payment. */
export async function reportLatePayment(sql: Sql, charge: ChargeRow, payment: ChargePaymentRow, widgetBaseUrl: string): Promise<void> {
  await enqueueWebhook(sql, {
    merchantId: charge.merchantId,
    chargeId: charge.id,
    type: 'charge.late_payment',
    data: { ...renderCharge(charge, widgetBaseUrl), payment: renderPayment(payment) },
  })
}
