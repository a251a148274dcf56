/**
 * The public client every chain-facing piece here uses, over RPC_URL's nodes (one or several, the first
 * preferred, nodes/failover-transport.ts): JSON-RPC batching (concurrent reads and sends share round
 * trips) over rpcFetch, and a short polling interval, since local blocks come much faster than 4 s.
 */
import { createPublicClient, type PublicClient } from 'viem'
import type { RpcEndpoints } from '../config/index.js'
import { DEFAULT_RPC_STALL_SECONDS } from '../config/index.js'
import type { Logger } from '../platform/observability/index.js'
import { failoverTransport, type FailoverTransport } from './nodes/failover-transport.js'

export interface ChainClientParams extends RpcEndpoints {
  /** When given, a node is used once it has answered this chain id (checkChainId checks them all at start). */
  chainId?: number
  pollingIntervalMs?: number
  /** Per request and node (10 s by default); a slower node counts as failing. */
  timeoutMs?: number
  /** Retries of a request every node failed (2 by default). */
  retryCount?: number
  /** The most requests in one JSON-RPC batch (200 by default), or false for none. */
  batchSize?: number | false
  /** Told when another node takes over. */
  log?: Logger
}

export type ChainClient = PublicClient<FailoverTransport>

export function createChainClient(params: ChainClientParams): ChainClient {
  return createPublicClient({
    transport: failoverTransport({
      urls: rpcUrlsOf(params),
      stallMs: params.rpcStallMs ?? DEFAULT_RPC_STALL_SECONDS * 1000,
      chainId: params.chainId,
      timeoutMs: params.timeoutMs,
      retryCount: params.retryCount,
      batchSize: params.batchSize ?? 200,
      log: params.log,
    }),
    pollingInterval: params.pollingIntervalMs ?? 100,
  })
}

/** Only the nodes' settings of a piece's options. */
export function endpointsOf({ rpcUrl, fallbackRpcUrls, rpcStallMs }: RpcEndpoints): RpcEndpoints {
  return { rpcUrl, fallbackRpcUrls, rpcStallMs }
}

/** RPC_URL's entries in order. */
export function rpcUrlsOf(endpoints: RpcEndpoints): string[] {
  return [endpoints.rpcUrl, ...(endpoints.fallbackRpcUrls ?? [])]
}
