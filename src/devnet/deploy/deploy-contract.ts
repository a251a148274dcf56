/** Deploys one contract from its committed bytecode and waits for the address. */
import { encodeDeployData, type Abi, type ContractConstructorArgs, type Hex, type PublicClient } from 'viem'
import type { TxSender } from '../../chain/index.js'
import { BaseError } from '../../errors/index.js'

export interface DeployContractParams<abi extends Abi> {
  publicClient: PublicClient
  sender: TxSender
  abi: abi
  bytecode: Hex
  args: ContractConstructorArgs<abi>
}

export async function deployContract<const abi extends Abi>(
  params: DeployContractParams<abi>,
): Promise<{ address: Hex; blockNumber: number }> {
  const { publicClient, sender, abi, bytecode, args } = params
  const data = encodeDeployData({ abi, bytecode, args } as Parameters<typeof encodeDeployData>[0])
  const hash = await sender.send({ data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new BaseError(`deployment failed in ${hash}`, { details: { txHash: hash } })
  return { address: receipt.contractAddress.toLowerCase() as Hex, blockNumber: Number(receipt.blockNumber) }
}
