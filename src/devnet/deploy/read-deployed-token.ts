/** Reads an existing ERC-20's symbol, name and decimals, for deployment files. */
import { erc20Abi, type Hex, type PublicClient } from 'viem'
import type { DeployedToken } from '../../wire/index.js'

export async function readDeployedToken(publicClient: PublicClient, address: Hex): Promise<DeployedToken> {
  const [symbol, name, decimals] = await Promise.all(
    (['symbol', 'name', 'decimals'] as const).map((functionName) =>
      publicClient.readContract({ address, abi: erc20Abi, functionName }),
    ),
  )
  return { address: address.toLowerCase() as Hex, symbol: String(symbol), name: String(name), decimals: Number(decimals) }
}
