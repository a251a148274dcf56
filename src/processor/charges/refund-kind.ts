/**
 * The refund as a payable (issue 23): its transition table and its webhooks, sent under the refund's
 * charge.
 *
 *   awaiting-signature → confirming → settled
 *   awaiting-signature → expired | canceled
 *   confirming | settled → awaiting-signature   (a reorg took the refund's settlement away: refund.reverted)
 *
 * Settling a refund, or a reorg taking a settled one back, recounts the charge's `amountRefunded` and
 * status (partially-refunded, refunded) in the same transaction.
 */
import { lockCharge, recountChargeRefunds, refundQueries, type RefundRow } from '../db/index.js'
import { transitionTable, type PayableKind } from './payable-kind.js'
import { renderRefund } from './render-payable.js'

export const refundKind: PayableKind<RefundRow, RefundRow['status'], 'awaiting-signature'> = {
  name: 'refund',
  awaiting: 'awaiting-signature',
  rules: transitionTable<RefundRow['status'], 'awaiting-signature'>('refund', 'awaiting-signature', ['confirming', 'settled']),
  queries: refundQueries,
  render: renderRefund,
  chargeIdOf: (refund) => refund.chargeId,
  async settledChange(sql, refund, change) {
    // Creation locks the charge to check what is left to refund: locking it here too, the two never race.
    await lockCharge(sql, refund.chargeId)
    const changed = await change()
    await recountChargeRefunds(sql, refund.chargeId)
    return changed
  },
}
