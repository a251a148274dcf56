/**
 * The public client every chain-facing piece here uses: HTTP with JSON-RPC batching (concurrent reads and
 * sends share round trips) over rpcFetch, and a short polling interval, since local blocks come much
 * faster than 4 s.
 */
import { createPublicClient, http, type PublicClient } from 'viem'
import { rpcFetch } from '../platform/net/index.js'

export function createChainClient(params: { rpcUrl: string; pollingIntervalMs?: number }): PublicClient {
  return createPublicClient({
    transport: http(params.rpcUrl, { batch: { batchSize: 200, wait: 0 }, retryCount: 2, fetchFn: rpcFetch }),
    pollingInterval: params.pollingIntervalMs ?? 100,
  })
}
