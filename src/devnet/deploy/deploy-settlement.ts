/** Deploys the settlement contract with its deployment parameters (SPEC §1); the sender becomes its owner. */
import type { Hex, PublicClient } from 'viem'
import { settlementAbi, settlementBytecode } from '../../chain/index.js'
import type { TxSender } from '../../chain/index.js'
import { deployContract } from './deploy-contract.js'

export interface SettlementParams {
  /** Token smallest units; the local default is 2500000 (2.50 of a 6-decimal token). */
  baseFeeAmount: bigint
  /** Basis points; 500 = 5.00 %. */
  maxAcquiringFee: number
  acquiringPrice: bigint
  feeRecipient: Hex
  /** Tokens acquiring packs can be paid in. */
  allowedTokens: Hex[]
}

export const DEFAULT_BASE_FEE_AMOUNT = 2_500_000n

export function deploySettlement(params: {
  publicClient: PublicClient
  sender: TxSender
  settlement: SettlementParams
}): Promise<{ address: Hex; blockNumber: number }> {
  const { baseFeeAmount, maxAcquiringFee, acquiringPrice, feeRecipient, allowedTokens } = params.settlement
  return deployContract({
    publicClient: params.publicClient,
    sender: params.sender,
    abi: settlementAbi,
    bytecode: settlementBytecode,
    args: [baseFeeAmount, BigInt(maxAcquiringFee), acquiringPrice, feeRecipient, allowedTokens],
  })
}
