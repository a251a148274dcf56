/**
 * How far the applied feed has come on the chain's clock. The explorer emits settlements only at its
 * confirmed depth and may be behind or down, so the wall clock says nothing about whether a charge's
 * payment is still on its way: a charge may only expire once every settlement that could still arrive
 * is mined after its deadline. That is the earliest timestamp an unapplied settlement can have: the first
 * one the explorer holds after the stored cursor, or, when there is none up to its indexed head, the
 * head block's own timestamp (later blocks are no older).
 */
import type { PublicClient } from 'viem'
import type { ExplorerClient } from '../../sdk/index.js'

export interface FeedTimeParams {
  explorer: ExplorerClient
  publicClient: PublicClient
  /** The stored reconciliation cursor: everything up to it is applied. */
  cursor: string | undefined
}

/** The chain time (ms since the epoch) every unapplied settlement is at or after; undefined when unknown. */
export async function feedTime({ explorer, publicClient, cursor }: FeedTimeParams): Promise<number | undefined> {
  if (cursor === undefined) return undefined
  const head = await explorer.getIndexedHead()
  if (!head) return undefined
  const { events } = await explorer.getEvents({ cursor, order: 'asc', toBlock: head.blockNumber, limit: 1 })
  if (events[0]) return events[0].timestamp * 1000
  const block = await publicClient.getBlock({ blockHash: head.blockHash })
  return Number(block.timestamp) * 1000
}
