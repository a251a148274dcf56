/** Deploys a TestStablecoin (6 decimals, ERC-2612, owner-mintable); the sender becomes its owner. */
import type { Hex, PublicClient } from 'viem'
import { stablecoinAbi, stablecoinBytecode } from '../../chain/index.js'
import type { TxSender } from '../../chain/index.js'
import { deployContract } from './deploy-contract.js'
import type { DeployedToken } from '../../wire/index.js'

export async function deployStablecoin(params: {
  publicClient: PublicClient
  sender: TxSender
  name: string
  symbol: string
}): Promise<DeployedToken> {
  const { address } = await deployContract({
    publicClient: params.publicClient,
    sender: params.sender,
    abi: stablecoinAbi,
    bytecode: stablecoinBytecode,
    args: [params.name, params.symbol],
  })
  return { address, symbol: params.symbol, name: params.name, decimals: 6 }
}
