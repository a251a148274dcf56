/**
 * What the gateway knows of the chain: the supported tokens (the settlement contract's directory, kept
 * current on admin events) looked up by domain separator or address without a round trip, their
 * EIP-712 domains, and the reads its answers need (balances, permit nonces, fees), kept until the chain
 * moves (head-cache.ts).
 */
import { erc20Abi, type Hex, type PublicClient } from 'viem'
import { settlementAbi } from '../../../chain/index.js'
import { stablecoinAbi } from '../../../chain/index.js'
import { checkChainId, createChainClient, endpointsOf } from '../../../chain/index.js'
import type { Directory, DirectoryToken } from '../../../chain/index.js'
import { watchDirectory } from '../../../chain/index.js'
import type { TokenDomain } from '../../../wire/index.js'
import type { RpcEndpoints } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import { GatewayRefusal } from '../input/gateway-refusal.js'
import { HeadCache } from './head-cache.js'

export interface GatewayChain {
  publicClient: PublicClient
  tokens(): DirectoryToken[]
  /** The supported token with this domain separator; UNSUPPORTED_TOKEN otherwise. */
  token(domainSeparator: Hex): DirectoryToken
  tokenAt(address: Hex): DirectoryToken | undefined
  tokenDomain(token: DirectoryToken): TokenDomain
  balanceOf(token: Hex, holder: Hex): Promise<bigint>
  nonceOf(token: Hex, owner: Hex): Promise<bigint>
  /** `calculateFees(principal, acquirerId)`. */
  feesOn(principal: bigint, acquirerId: Hex): Promise<bigint>
  /** `breakdownTransferAmount(total, acquirerId)`. */
  breakdown(total: bigint, acquirerId: Hex): Promise<{ principal: bigint; fees: bigint }>
  /** A new head: every read is asked again. */
  headMoved(): void
  /** A submission of `owner` was mined or failed: its nonces and balances are asked again. */
  ownerMoved(owner: Hex): void
  stop(): void
}

export interface OpenGatewayChainParams extends RpcEndpoints {
  chainId: number
  contract: Hex
  startBlock: number
  pollIntervalMs: number
  log: Logger
}

interface TokenIndex {
  bySeparator: Map<Hex, DirectoryToken>
  byAddress: Map<Hex, DirectoryToken>
}

export async function openGatewayChain(params: OpenGatewayChainParams): Promise<GatewayChain> {
  const { contract, chainId, log } = params
  const publicClient = createChainClient({ ...endpointsOf(params), chainId, pollingIntervalMs: params.pollIntervalMs, log })
  await checkChainId(publicClient, chainId)
  let index: TokenIndex
  const watch = await watchDirectory({
    publicClient,
    settlementContract: contract,
    fromBlock: BigInt(params.startBlock),
    pollIntervalMs: params.pollIntervalMs,
    onChange(directory) {
      index = indexTokens(directory)
      log.info('directory changed', { tokens: directory.tokens.map((t) => t.symbol) })
    },
    onError: (error) => log.warn('directory refresh failed; keeping the last one read', { error }),
  })
  index = indexTokens(watch.current())
  const cache = new HeadCache()
  const cached = <T>(key: string, load: () => Promise<T>) => cache.read(key.toLowerCase(), load)

  return {
    publicClient,
    tokens: () => [...index.bySeparator.values()],
    token(domainSeparator) {
      const token = index.bySeparator.get(domainSeparator)
      if (!token) throw new GatewayRefusal('UNSUPPORTED_TOKEN', `no supported token has the domain separator ${domainSeparator}`)
      return token
    },
    tokenAt: (address) => index.byAddress.get(address),
    tokenDomain: (token) => ({ name: token.name, version: token.version, chainId, verifyingContract: token.address }),
    balanceOf: (token, holder) =>
      cached(`balance:${token}:${holder}`, () => publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })),
    nonceOf: (token, owner) =>
      cached(`nonce:${token}:${owner}`, () => publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [owner] })),
    feesOn: (principal, acquirerId) =>
      cached(`fees:${principal}:${acquirerId}`, () =>
        publicClient.readContract({ address: contract, abi: settlementAbi, functionName: 'calculateFees', args: [principal, acquirerId] }),
      ),
    breakdown: (total, acquirerId) =>
      cached(`breakdown:${total}:${acquirerId}`, async () => {
        const [principal, fees] = await publicClient.readContract({ address: contract, abi: settlementAbi, functionName: 'breakdownTransferAmount', args: [total, acquirerId] })
        return { principal, fees }
      }),
    headMoved: () => cache.clear(),
    ownerMoved: (owner) => cache.forget(owner.toLowerCase()),
    stop: () => watch.stop(),
  }
}

function indexTokens(directory: Directory): TokenIndex {
  return {
    bySeparator: new Map(directory.tokens.map((t) => [t.domainSeparator, t])),
    byAddress: new Map(directory.tokens.map((t) => [t.address.toLowerCase() as Hex, t])),
  }
}
