/**
 * Confirmations, counted from the chain head (`eth_blockNumber`): each poll updates the count of every
 * confirming charge, and settles those with CONFIRMATION_BLOCKS blocks on top of their settlement once
 * the node confirms the settlement is still there. The node is asked for the transaction's receipt: at
 * the same position the charge settles; mined again elsewhere, the charge follows it and counts again;
 * gone (a reorg the explorer could not report, e.g. while this engine was down), the charge goes back to
 * awaiting payment exactly as on a REMOVED.
 */
import type { Hex, PublicClient } from 'viem'
import { confirmingCharges, lockCharge, moveChargeSettlement, setConfirmations, type ChargeRow, type SettlementPosition } from '../db/index.js'
import { runTransaction } from '../db/index.js'
import type pg from 'pg'
import { applyRemoval, confirmationsOf, type ReconcileContext } from './apply-feed-item.js'
import { changeCharge } from '../charges/index.js'
import { findSettlementLog } from './chain-settlement.js'

export interface ConfirmChargesParams {
  client: pg.PoolClient
  publicClient: PublicClient
  contract: Hex
  ctx: ReconcileContext
}

export async function confirmCharges({ client, publicClient, contract, ctx }: ConfirmChargesParams): Promise<void> {
  for (const charge of await confirmingCharges(client)) {
    const settlement = charge.settlement!
    const confirmations = confirmationsOf(settlement, ctx)
    if (confirmations < ctx.confirmationBlocks) {
      await setConfirmations(client, charge.id, confirmations)
      continue
    }
    const onChain = await findOnChain(publicClient, contract, charge)
    await runTransaction(client, async (tx) => {
      const locked = await lockCharge(tx, charge.id)
      if (locked?.status !== 'confirming' || !samePosition(locked.settlement!, settlement)) return
      if (!onChain) await applyRemoval(tx, settlement, ctx)
      else if (!samePosition(onChain, settlement)) await moveChargeSettlement(tx, charge.id, onChain)
      else await changeCharge(tx, locked, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
    })
  }
}

export const samePosition = (a: SettlementPosition, b: SettlementPosition) => a.txHash === b.txHash && a.blockNumber === b.blockNumber && a.logIndex === b.logIndex

/** Where the node has the charge's settlement now, if anywhere. */
async function findOnChain(publicClient: PublicClient, contract: Hex, charge: ChargeRow): Promise<SettlementPosition | undefined> {
  const { txHash } = charge.settlement!
  const log = await findSettlementLog(publicClient, contract, txHash, charge.orderReference)
  return log ? { txHash, blockNumber: log.blockNumber, logIndex: log.logIndex } : undefined
}
