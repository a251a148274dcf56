/**
 * The demo wallet's payers on the devnet (chain 31337 only): deterministic local keys of their own, not
 * the devnet's traffic payers — the gateway keeps one connection per address, so paying as a traffic
 * payer would close that payer's connection (4001 superseded). A demo payer is topped up from the
 * devnet's funded payer of the same index with a plain ERC-20 transfer, which touches neither that
 * payer's permit nonces nor anything the traffic signs.
 */
import { encodeFunctionData, erc20Abi, type Hex, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createChainClient } from '../../chain/index.js'
import { createTxSender } from '../../chain/index.js'
import { ConfigError, deriveLocalKey, LOCAL_CHAIN_ID } from '../../config/index.js'
import { BaseError } from '../../errors/index.js'

/** Payments a top-up covers. */
const TOP_UP_PAYMENTS = 100n

export const demoPayerAccount = (index: number): LocalAccount => privateKeyToAccount(deriveLocalKey('demo-wallet', index))

/**
 * The wallet of devnet recipient `index`, a demo merchant's beneficiary (the demo store is paid to
 * recipient 0): it pays refunds back. Chain 31337 only, as the payers' keys (its key is public too).
 */
export const demoMerchantAccount = (index: number): LocalAccount => privateKeyToAccount(deriveLocalKey('recipient', index))

/** Refuses any chain but the devnet: a demo payer's key is derived from a public string. */
export function assertDemoChain(chainId: number): void {
  if (chainId !== LOCAL_CHAIN_ID) throw new ConfigError(`the demo wallet pays with a well-known local key: chain ${LOCAL_CHAIN_ID} only, this session is on chain ${chainId}`)
}

export interface TopUpParams {
  rpcUrl: string
  /** The demo payer's index: devnet payer `index` funds it. */
  index: number
  /** Who is topped up: demo payer `index` unless named (a merchant's wallet paying a refund). */
  to?: Hex
  token: Hex
  /** The payer's balance now and what the next payment needs, in token units. */
  balance: bigint
  needed: bigint
}

/** Sends `needed` × 100 of the token from devnet payer `index` when the balance falls short; resolves once mined. */
export async function topUpDemoPayer({ rpcUrl, index, token, balance, needed, to = demoPayerAccount(index).address }: TopUpParams): Promise<Hex | undefined> {
  if (balance >= needed) return undefined
  const publicClient = createChainClient({ rpcUrl, pollingIntervalMs: 100 })
  const funder = await createTxSender({ publicClient, privateKey: deriveLocalKey('payer', index) })
  assertDemoChain(funder.chainId)
  const txHash = await funder.send({
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, needed * TOP_UP_PAYMENTS] }),
    gas: 100_000n,
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash })
  if (receipt.status !== 'success') throw new BaseError(`topping up demo payer ${index} failed in ${txHash} (is devnet payer ${index} funded?)`)
  return txHash
}
