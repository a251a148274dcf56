/**
 * What one item of the explorer's feed does to refunds (issue 23), exactly as `apply-feed-item.ts` does
 * to charges: a settlement carrying a refund's order reference is read back from the chain, recorded
 * (refund_payments) whatever it is, and pays the refund awaiting a signature when token, recipient (the
 * charge's payer) and `amount >= refund amount` agree (confirming; settled at once with
 * CONFIRMATION_BLOCKS 0). One for a refund expired, canceled or already paid is recorded as late or
 * second and moves nothing: a refund never counts twice. A removal (a reorg) of the paying settlement
 * takes the refund back to awaiting a signature (`refund.reverted`), and a settled one out of its charge's
 * `amountRefunded`.
 */
import { insertRefundPayment, lockRefund, lockRefundByOrderReference, markRefundPaymentRemoved, moveRefundSettlement, type RefundRow } from '../db/index.js'
import type { SettlementPosition, Sql } from '../db/index.js'
import { changeRefund } from '../charges/index.js'
import { confirmationsOf, mismatchOf, samePosition, type ReconcileContext } from './apply-feed-item.js'
import type { ReportedSettlement } from './chain-settlement.js'

export async function applyRefundSettlement(sql: Sql, reported: ReportedSettlement, ctx: ReconcileContext): Promise<void> {
  const refund = await lockRefundByOrderReference(sql, reported.orderReference)
  if (!refund) return
  const event = await ctx.onChain(reported)
  if (!event) return
  const position: SettlementPosition = { txHash: event.txHash, blockNumber: event.blockNumber, logIndex: event.logIndex }
  const mismatch = mismatchOf(refund, event)
  const paying = refund.settlement
  const moved = paying?.txHash === event.txHash && !samePosition(paying, position)
  if (moved) await markRefundPaymentRemoved(sql, paying.txHash, paying.logIndex)
  const outcome = moved || refund.status === 'awaiting-signature' ? (mismatch.length > 0 ? 'mismatched' : 'matched') : refund.status === 'confirming' || refund.status === 'settled' ? 'second' : 'late'
  const payment = await insertRefundPayment(sql, {
    refundId: refund.id,
    ...position,
    token: event.token,
    payer: event.payer,
    recipient: event.recipient,
    amount: event.amount,
    fee: event.fee,
    outcome,
    mismatch,
  })
  if (!payment) return
  if (moved) await moveRefundSettlement(sql, refund.id, position)
  else if (outcome === 'matched') await payRefund(sql, refund, position, ctx)
}

/** As `applyRemoval` for charges: once the chain shows the settlement gone. */
export async function applyRefundRemoval(sql: Sql, event: Pick<SettlementPosition, 'txHash' | 'logIndex'>, ctx: ReconcileContext): Promise<void> {
  const removed = await markRefundPaymentRemoved(sql, event.txHash, event.logIndex, ctx.head())
  if (!removed) return
  const refund = await lockRefund(sql, removed.refundId)
  const settlement = refund?.settlement
  if (!refund || !settlement || !samePosition(settlement, removed)) return
  await changeRefund(sql, refund, { to: 'awaiting-signature' }, ctx.widgetBaseUrl)
}

async function payRefund(sql: Sql, refund: RefundRow, settlement: SettlementPosition, ctx: ReconcileContext): Promise<void> {
  const confirmations = confirmationsOf(settlement, ctx)
  const confirming = await changeRefund(sql, refund, { to: 'confirming', settlement, confirmations }, ctx.widgetBaseUrl)
  if (ctx.confirmationBlocks === 0) await changeRefund(sql, confirming, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
}
