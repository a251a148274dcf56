/**
 * The refund state machine (issue 23) and its webhooks, as `change-charge.ts` for charges: every change of
 * a locked refund writes its event to the outbox in the same transaction, under the refund's charge (so a
 * charge's and its refunds' events reach the merchant in order).
 *
 *   awaiting-signature → confirming → settled
 *   awaiting-signature → expired | canceled
 *   confirming | settled → awaiting-signature   (a reorg took the refund's settlement away: refund.reverted)
 *
 * Settling a refund, or a reorg taking a settled one back, recounts the charge's `amountRefunded` and
 * status (partially-refunded, refunded) in the same transaction.
 */
import { lockCharge, recountChargeRefunds, transitionRefund, type RefundRow, type RefundStatus, type RefundTransition } from '../db/index.js'
import type { Sql } from '../db/index.js'
import { enqueueWebhook, type WebhookType } from '../db/index.js'
import { renderRefund } from './render-refund.js'
import { BaseError } from '../../errors/index.js'

const rules: Record<RefundTransition['to'], { from: RefundStatus[]; webhook: WebhookType }> = {
  confirming: { from: ['awaiting-signature'], webhook: 'refund.confirming' },
  settled: { from: ['confirming'], webhook: 'refund.settled' },
  'awaiting-signature': { from: ['confirming', 'settled'], webhook: 'refund.reverted' },
  expired: { from: ['awaiting-signature'], webhook: 'refund.expired' },
  canceled: { from: ['awaiting-signature'], webhook: 'refund.canceled' },
}

export const canTransitionRefund = (status: RefundStatus, to: RefundTransition['to']) => rules[to].from.includes(status)

/** Moves a refund locked by this transaction, recounts its charge when settled refunds changed, and enqueues its webhook. */
export async function changeRefund(sql: Sql, refund: RefundRow, transition: RefundTransition, widgetBaseUrl: string): Promise<RefundRow> {
  const rule = rules[transition.to]
  if (!rule.from.includes(refund.status)) throw new BaseError(`refund ${refund.id}: no transition from ${refund.status} to ${transition.to}`, { details: { id: refund.id, from: refund.status, to: transition.to } })
  // Creation locks the charge to check what is left to refund: locking it here too, the two never race.
  if (transition.to === 'settled' || refund.status === 'settled') await lockCharge(sql, refund.chargeId)
  const changed = await transitionRefund(sql, refund.id, transition)
  if (transition.to === 'settled' || refund.status === 'settled') await recountChargeRefunds(sql, refund.chargeId)
  await enqueueRefundEvent(sql, changed, rule.webhook, widgetBaseUrl)
  return changed
}

export async function enqueueRefundEvent(sql: Sql, refund: RefundRow, type: WebhookType, widgetBaseUrl: string): Promise<void> {
  await enqueueWebhook(sql, { merchantId: refund.merchantId, chargeId: refund.chargeId, type, data: renderRefund(refund, widgetBaseUrl) })
}
