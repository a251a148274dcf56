/**
 * What a new charge is checked and priced against, read from the chain: the supported tokens (the
 * settlement contract's directory, kept current on its admin events) and the contract's own fee
 * calculation, so `totalToPay` is exactly what a wallet will be asked to sign for.
 */
import { BaseError as ViemError, ContractFunctionRevertedError, type Hex } from 'viem'
import { checkChainId, settlementAbi, type ChainClient } from '../../../chain/index.js'
import type { DirectoryToken } from '../../../chain/index.js'
import { watchDirectory } from '../../../chain/index.js'
import type { ChainSettings } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'

export interface ChargeTerms {
  /** The supported token at this address (lower case), if it is one. */
  token(address: Hex): DirectoryToken | undefined
  /**
   * `calculateFees(amount, acquirerId)` of the settlement contract; undefined when the contract refuses
   * the amount (it reverts). A node that fails to answer rejects: that is an outage, not a bad amount.
   */
  feesOn(amount: bigint, acquirerId: Hex): Promise<bigint | undefined>
  /** Why the last directory refresh failed, if it did. */
  lastError(): Error | undefined
  stop(): void
}

export async function openChargeTerms(chain: ChainSettings & { pollIntervalMs: number }, publicClient: ChainClient, log: Logger): Promise<ChargeTerms> {
  await checkChainId(publicClient, chain.chainId)
  const byAddress = (tokens: DirectoryToken[]) => new Map(tokens.map((t) => [t.address.toLowerCase() as Hex, t]))
  let tokens = new Map<Hex, DirectoryToken>()
  const watch = await watchDirectory({
    publicClient,
    settlementContract: chain.contract,
    fromBlock: BigInt(chain.startBlock),
    pollIntervalMs: chain.pollIntervalMs,
    onChange(directory) {
      tokens = byAddress(directory.tokens)
      log.info('supported tokens changed', { tokens: directory.tokens.map((t) => t.symbol) })
    },
    onError: (error) => log.warn('directory refresh failed; keeping the last one read', { error }),
  })
  tokens = byAddress(watch.current().tokens)
  return {
    token: (address) => tokens.get(address),
    feesOn: (amount, acquirerId) =>
      publicClient.readContract({ address: chain.contract, abi: settlementAbi, functionName: 'calculateFees', args: [amount, acquirerId] }).catch((error: unknown) => {
        if (error instanceof ViemError && error.walk((cause) => cause instanceof ContractFunctionRevertedError) instanceof ContractFunctionRevertedError) return undefined
        throw error
      }),
    lastError: () => watch.lastError(),
    stop: () => watch.stop(),
  }
}
