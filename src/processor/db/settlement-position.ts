/** Where a payable's paying settlement is on the chain: what charges, refunds and their payments record. */
import type { Hex } from 'viem'

export interface SettlementPosition {
  txHash: Hex
  blockNumber: number
  logIndex: number
}

/** The tables of payables: charges and refunds. */
export type PayableTableName = 'charges' | 'refunds'
