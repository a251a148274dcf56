/**
 * Confirmations, counted from the chain head (`eth_blockNumber`), of charges and refunds alike: each poll
 * updates the count of every confirming one, and settles those with CONFIRMATION_BLOCKS blocks on top of
 * their settlement once the node shows the settlement is still there. Mined again elsewhere, the settlement
 * is recorded again at its new position as a feed item would be (`applySettlement`: the old position marked
 * removed, the row following it, no event), and counts again — so the feed reporting that position later finds
 * it recorded and reports no second payment; gone — on the chain's positive evidence only (`settlement-presence.ts`),
 * a reorg the explorer could not report, e.g. while this engine was down — it goes back to awaiting
 * payment exactly as on a removal; unsure (a node behind, erring, hiding the receipt), it waits.
 */
import type pg from 'pg'
import type { Hex } from 'viem'
import { changeCharge, changeRefund } from '../charges/index.js'
import { confirmingCharges, lockCharge, runTransaction, setConfirmations, type ChargeRow, type SettlementPosition, type Sql } from '../db/index.js'
import { confirmingRefunds, lockRefund, setRefundConfirmations, type RefundRow } from '../db/index.js'
import { applyRemoval, applySettlement, confirmationsOf, samePosition, type ReconcileContext } from './apply-feed-item.js'
import { applyRefundRemoval } from './apply-refund-item.js'

interface Confirmable {
  id: string
  status: string
  orderReference: Hex
  settlement: SettlementPosition | null
}

/** What confirming does to one kind of payable, bound to its table and state machine. */
interface ConfirmableKind<Row extends Confirmable> {
  confirming(sql: Sql): Promise<Row[]>
  lock(sql: Sql, id: string): Promise<Row | undefined>
  setConfirmations(sql: Sql, id: string, confirmations: number): Promise<void>
  settle(sql: Sql, row: Row, confirmations: number, widgetBaseUrl: string): Promise<unknown>
  remove(sql: Sql, position: SettlementPosition, ctx: ReconcileContext): Promise<void>
}

const charges: ConfirmableKind<ChargeRow> = {
  confirming: confirmingCharges,
  lock: lockCharge,
  setConfirmations,
  settle: (sql, row, confirmations, widgetBaseUrl) => changeCharge(sql, row, { to: 'settled', confirmations }, widgetBaseUrl),
  remove: applyRemoval,
}

const refunds: ConfirmableKind<RefundRow> = {
  confirming: confirmingRefunds,
  lock: lockRefund,
  setConfirmations: setRefundConfirmations,
  settle: (sql, row, confirmations, widgetBaseUrl) => changeRefund(sql, row, { to: 'settled', confirmations }, widgetBaseUrl),
  remove: applyRefundRemoval,
}

export async function confirmPayables(client: pg.PoolClient, ctx: ReconcileContext): Promise<void> {
  await confirm(client, ctx, charges)
  await confirm(client, ctx, refunds)
}

async function confirm<Row extends Confirmable>(client: pg.PoolClient, ctx: ReconcileContext, kind: ConfirmableKind<Row>): Promise<void> {
  for (const row of await kind.confirming(client)) {
    const settlement = row.settlement!
    const confirmations = confirmationsOf(settlement, ctx)
    if (confirmations < ctx.confirmationBlocks) {
      await kind.setConfirmations(client, row.id, confirmations)
      continue
    }
    const presence = await ctx.presence(settlement, row.orderReference)
    if (presence.kind === 'unsure') continue
    await runTransaction(client, async (tx) => {
      const locked = await kind.lock(tx, row.id)
      if (locked?.status !== 'confirming' || !samePosition(locked.settlement!, settlement)) return
      if (presence.kind === 'gone') await kind.remove(tx, settlement, ctx)
      else if (!samePosition(presence.at, settlement)) await applySettlement(tx, { txHash: settlement.txHash, orderReference: row.orderReference }, ctx)
      else await kind.settle(tx, locked, confirmations, ctx.widgetBaseUrl)
    })
  }
}
