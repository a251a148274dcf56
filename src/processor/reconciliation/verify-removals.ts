/**
 * The chain's word on removals, asked on each head poll (issue 38 item 1):
 * - a removal the explorer's feed reported is applied only once the chain shows the settlement gone
 *   (`settlement-presence.ts`); while the chain still pays it, the report is set aside — a wrong or
 *   compromised explorer cannot revert a paid charge;
 * - a settlement taken away in the last `restoreWatchBlocks` blocks that the chain pays again (a reorg
 *   undone, a node that was wrong) is applied again as a new sighting, and pays its charge or refund again
 *   if nothing else did meanwhile; until the watch ends, that charge or refund does not expire.
 */
import type pg from 'pg'
import { dismissRemovalReport, paymentsRemovedSince, paymentsReportedRemoved, runTransaction } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { applyRemoval, applySettlement, type ReconcileContext } from './apply-feed-item.js'

export async function verifyRemovals(client: pg.PoolClient, ctx: ReconcileContext, log: Logger): Promise<void> {
  for (const payment of await paymentsReportedRemoved(client)) {
    const presence = await ctx.presence(payment, payment.orderReference)
    if (presence.kind === 'unsure') continue
    if (presence.kind === 'held') log.warn('the explorer reported a removal the chain does not show; the payment stands', { txHash: payment.txHash, logIndex: payment.logIndex })
    await runTransaction(client, (tx) => (presence.kind === 'gone' ? applyRemoval(tx, payment, ctx) : dismissRemovalReport(tx, payment)))
  }
}

export async function restoreReturned(client: pg.PoolClient, ctx: ReconcileContext, log: Logger): Promise<void> {
  const head = ctx.head()
  if (head === undefined) return
  for (const payment of await paymentsRemovedSince(client, head - ctx.restoreWatchBlocks)) {
    const presence = await ctx.presence(payment, payment.orderReference)
    if (presence.kind !== 'held') continue
    log.warn('a settlement taken away is on the chain again; applied again', { txHash: payment.txHash, blockNumber: presence.at.blockNumber })
    await runTransaction(client, (tx) => applySettlement(tx, { txHash: payment.txHash, orderReference: payment.orderReference }, ctx))
  }
}
