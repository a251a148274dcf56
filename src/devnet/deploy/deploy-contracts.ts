/**
 * One deployment, as both `devnet` and `deploy` do it: optional test stablecoins, then the settlement
 * contract accepting those plus any existing tokens for acquiring packs.
 */
import type { Hex, PublicClient } from 'viem'
import type { TxSender } from '../../chain/index.js'
import { deploySettlement, type SettlementParams } from './deploy-settlement.js'
import type { DeployedToken } from '../../wire/index.js'
import { deployStablecoin } from './deploy-stablecoin.js'
import { readDeployedToken } from './read-deployed-token.js'

export interface DeployContractsParams {
  publicClient: PublicClient
  sender: TxSender
  /** Test stablecoins to deploy first (local and test networks). */
  testTokens?: { name: string; symbol: string }[]
  settlement: SettlementParams
}

export interface DeployedContracts {
  settlementContract: Hex
  startBlock: number
  tokens: DeployedToken[]
}

export async function deployContracts(params: DeployContractsParams): Promise<DeployedContracts> {
  const { publicClient, sender, settlement } = params
  const deployed = await Promise.all(
    (params.testTokens ?? []).map((token) => deployStablecoin({ publicClient, sender, ...token })),
  )
  const existing = await Promise.all(settlement.allowedTokens.map((address) => readDeployedToken(publicClient, address)))
  const tokens = [...deployed, ...existing]
  const { address, blockNumber } = await deploySettlement({
    publicClient,
    sender,
    settlement: { ...settlement, allowedTokens: tokens.map((token) => token.address) },
  })
  return { settlementContract: address, startBlock: blockNumber, tokens }
}
