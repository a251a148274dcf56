/**
 * The chain's own account of a settlement, read from this engine's node: the transaction's receipt and
 * the contract's PermittedTransfer log in it carrying the charge's order reference. The explorer's fields
 * never pay a charge on their own (a wrong, lagging or compromised explorer would settle what nobody
 * paid): token, payer, recipient, value, fee and the block's time are taken from here.
 */
import { parseEventLogs, TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem'
import { settlementAbi } from '../../chain/index.js'
import type { Settlement } from '../../wire/index.js'
import { BaseError } from '../../errors/index.js'

/** The node has no receipt for a settlement the explorer reported: it may be behind; the feed retries. */
export class SettlementNotOnNodeError extends BaseError {
  override name = 'SettlementNotOnNodeError'
}

/** What the chain's log says of a settlement, in the explorer's shape. */
export type SettlementOnChain = Pick<Settlement, 'blockNumber' | 'logIndex' | 'token' | 'payer' | 'recipient' | 'amount' | 'fee' | 'acquirerId'>

/**
 * The log paying `orderReference` in `txHash`: undefined when the transaction has no such log or was
 * reverted, null when the node has no receipt for it at all.
 */
export async function findSettlementLog(publicClient: PublicClient, contract: Hex, txHash: Hex, orderReference: Hex): Promise<SettlementOnChain | undefined | null> {
  const receipt = await publicClient.getTransactionReceipt({ hash: txHash }).catch((error: unknown) => {
    if (error instanceof TransactionReceiptNotFoundError) return null
    throw error
  })
  if (!receipt) return null
  if (receipt.status !== 'success') return undefined
  const log = parseEventLogs({ abi: settlementAbi, eventName: 'PermittedTransfer', logs: receipt.logs }).find(
    (entry) => entry.address.toLowerCase() === contract && entry.args.orderReference.slice(0, 34).toLowerCase() === orderReference,
  )
  if (!log) return undefined
  const { token, payer, recipient, value, fee, orderReference: ref } = log.args
  return {
    blockNumber: Number(receipt.blockNumber),
    logIndex: log.logIndex,
    token: token.toLowerCase() as Hex,
    payer: payer.toLowerCase() as Hex,
    recipient: recipient.toLowerCase() as Hex,
    amount: value.toString(),
    fee: fee.toString(),
    acquirerId: `0x${ref.slice(34).toLowerCase()}`,
  }
}

/** What reconciliation needs of a reported settlement to find it on the chain: the rest is read there. */
export type ReportedSettlement = Pick<Settlement, 'txHash' | 'orderReference'>

/** A settlement as the chain has it: its position, fields and block time. */
export type ChainSettlement = SettlementOnChain & Pick<Settlement, 'txHash' | 'orderReference' | 'timestamp'>

/**
 * The settlement `event` reports, as the chain has it; undefined when the chain has no such payment in
 * that transaction (the explorer's report is not believed).
 */
export async function settlementAsOnChain(publicClient: PublicClient, contract: Hex, event: ReportedSettlement): Promise<ChainSettlement | undefined> {
  const onChain = await findSettlementLog(publicClient, contract, event.txHash, event.orderReference.toLowerCase() as Hex)
  if (onChain === null) throw new SettlementNotOnNodeError('the node has no receipt for a settlement the explorer reported', { retryable: true, details: { txHash: event.txHash } })
  if (!onChain) return undefined
  const block = await publicClient.getBlock({ blockNumber: BigInt(onChain.blockNumber) })
  return { ...onChain, txHash: event.txHash, orderReference: event.orderReference, timestamp: Number(block.timestamp) }
}
