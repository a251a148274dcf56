/**
 * The checkout engine's node, made to lag (issue 38 item 1): a relay between the engine and anvil that,
 * every `meanGapMs` on average, answers "no such receipt" to every receipt request for `hideBlocks`
 * blocks' worth of time, as a node behind a load balancer or catching up does. No charge may change on it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { startRpcProxy, type RpcProxy } from '../../src/devnet/testing/index.js'

export interface LaggingNode {
  url: string
  /** Episodes of hidden receipts, and receipt requests answered "none" in them. */
  stats: { episodes: number; hidden: number }
  /** Starts the episodes; they end when `signal` aborts. */
  run(signal: AbortSignal): Promise<void>
  stop(): Promise<void>
}

export async function startLaggingNode({ rpcUrl, meanGapMs, hideBlocks, blockMs }: { rpcUrl: string; meanGapMs: number; hideBlocks: number; blockMs: number }): Promise<LaggingNode> {
  const proxy: RpcProxy = await startRpcProxy(rpcUrl)
  const stats = { episodes: 0, hidden: 0 }
  return {
    url: proxy.url,
    stats,
    async run(signal) {
      while (!signal.aborted) {
        await sleep(meanGapMs * (0.5 + Math.random()), undefined, { signal }).catch(() => {})
        if (signal.aborted) break
        stats.episodes++
        proxy.hide = (request) => request.method === 'eth_getTransactionReceipt' && ++stats.hidden > 0
        await sleep(hideBlocks * blockMs, undefined, { signal }).catch(() => {})
        proxy.hide = undefined
      }
    },
    stop: () => proxy.stop(),
  }
}
