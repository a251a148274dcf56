/**
 * Confirmations of refunds, as `confirm-charges.ts` does for charges on each head poll: the count of
 * every confirming refund is updated, and one with CONFIRMATION_BLOCKS on top settles once the node
 * confirms its settlement is still there (mined elsewhere: it follows; gone: reverted as on a REMOVED).
 */
import { confirmingRefunds, lockRefund, moveRefundSettlement, runTransaction, setRefundConfirmations } from '../db/index.js'
import { changeRefund } from '../charges/index.js'
import { confirmationsOf } from './apply-feed-item.js'
import { applyRefundRemoval } from './apply-refund-item.js'
import { findSettlementLog } from './chain-settlement.js'
import { samePosition, type ConfirmChargesParams } from './confirm-charges.js'

export async function confirmRefunds({ client, publicClient, contract, ctx }: ConfirmChargesParams): Promise<void> {
  for (const refund of await confirmingRefunds(client)) {
    const settlement = refund.settlement!
    const confirmations = confirmationsOf(settlement, ctx)
    if (confirmations < ctx.confirmationBlocks) {
      await setRefundConfirmations(client, refund.id, confirmations)
      continue
    }
    const log = await findSettlementLog(publicClient, contract, settlement.txHash, refund.orderReference)
    const onChain = log ? { txHash: settlement.txHash, blockNumber: log.blockNumber, logIndex: log.logIndex } : undefined
    await runTransaction(client, async (tx) => {
      const locked = await lockRefund(tx, refund.id)
      if (locked?.status !== 'confirming' || !samePosition(locked.settlement!, settlement)) return
      if (!onChain) await applyRefundRemoval(tx, settlement, ctx)
      else if (!samePosition(onChain, settlement)) await moveRefundSettlement(tx, refund.id, onChain)
      else await changeRefund(tx, locked, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
    })
  }
}
