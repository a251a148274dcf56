/**
 * Confirmations, counted from the chain head (`eth_blockNumber`), of every kind of payable alike
 * (`payable-kinds.ts`): each poll updates the count of every confirming one, and settles those with
 * CONFIRMATION_BLOCKS blocks on top of their settlement once the node shows the settlement is still there.
 * Mined again elsewhere, the settlement is recorded again at its new position as a feed item would be
 * (`applySettlement`: the old position marked removed, the row following it, no event), and counts again —
 * so the feed reporting that position later finds it recorded and reports no second payment; gone — on the
 * chain's positive evidence only (`settlement-presence.ts`), a reorg the explorer could not report, e.g.
 * while this engine was down — it goes back to awaiting payment exactly as on a removal; unsure (a node
 * behind, erring, hiding the receipt), it waits.
 */
import type pg from 'pg'
import { changePayable } from '../charges/index.js'
import { runTransaction } from '../db/index.js'
import { applyRemoval, applySettlement, confirmationsOf, samePosition, type ReconcileContext } from './apply-feed-item.js'
import { reconcilableKinds, type ReconcilableKind } from './payable-kinds.js'

export async function confirmPayables(client: pg.PoolClient, ctx: ReconcileContext): Promise<void> {
  for (const kind of reconcilableKinds) await confirm(client, ctx, kind)
}

async function confirm(client: pg.PoolClient, ctx: ReconcileContext, { payable }: ReconcilableKind): Promise<void> {
  for (const row of await payable.queries.confirming(client)) {
    const settlement = row.settlement!
    const confirmations = confirmationsOf(settlement, ctx)
    if (confirmations < ctx.confirmationBlocks) {
      await payable.queries.setConfirmations(client, row.id, confirmations)
      continue
    }
    const presence = await ctx.presence(settlement, row.orderReference)
    if (presence.kind === 'unsure') continue
    await runTransaction(client, async (tx) => {
      const locked = await payable.queries.lock(tx, row.id)
      if (locked?.status !== 'confirming' || !samePosition(locked.settlement!, settlement)) return
      if (presence.kind === 'gone') await applyRemoval(tx, settlement, ctx)
      else if (!samePosition(presence.at, settlement)) await applySettlement(tx, { txHash: settlement.txHash, orderReference: row.orderReference }, ctx)
      else await changePayable(tx, payable, locked, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
    })
  }
}
