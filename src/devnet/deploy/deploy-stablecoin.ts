/** Deploys a TestStablecoin (6 decimals, ERC-2612, owner-mintable); the sender becomes its owner. */
import type { Hex, PublicClient } from 'viem'
import { stablecoinAbi, stablecoinBytecode } from '../../chain/abi/stablecoin-abi.js'
import type { TxSender } from '../../chain/tx/create-tx-sender.js'
import { deployContract } from './deploy-contract.js'

export interface TokenInfo {
  address: Hex
  symbol: string
  name: string
  decimals: number
}

export async function deployStablecoin(params: {
  publicClient: PublicClient
  sender: TxSender
  name: string
  symbol: string
}): Promise<TokenInfo> {
  const { address } = await deployContract({
    publicClient: params.publicClient,
    sender: params.sender,
    abi: stablecoinAbi,
    bytecode: stablecoinBytecode,
    args: [params.name, params.symbol],
  })
  return { address, symbol: params.symbol, name: params.name, decimals: 6 }
}
