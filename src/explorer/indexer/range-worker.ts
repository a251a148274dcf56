/**
 * A Piscina worker of the indexing pool: fetches, decodes and encodes one backfill range
 * (fetch-range.ts) with its own chain client (and its own view of which node is fine), so that JSON
 * parsing and encoding stay off the thread that commits and serves. The batch crosses back as typed
 * arrays and short lists.
 */
import { createChainSource, describeError, type ChainSource } from './chain-source.js'
import { fetchRange } from './fetch-range.js'
import { crossThreads } from './node-errors.js'
import { markLoaded } from '../../platform/workers/index.js'
import type { EncodedBatch } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { RpcEndpoints } from '../../config/index.js'

export interface RangeTask {
  endpoints: RpcEndpoints
  chainId: number
  contract: Hex
  from: number
  to: number
}

const sources = new Map<string, ChainSource>()

export default async function indexRange({ endpoints, chainId, contract, from, to }: RangeTask): Promise<EncodedBatch> {
  const key = `${JSON.stringify(endpoints)} ${chainId} ${contract}`
  let source = sources.get(key)
  if (!source) sources.set(key, (source = createChainSource({ ...endpoints, chainId, contract })))
  try {
    return await fetchRange(source, from, to)
  } catch (error) {
    // Only the message and cause survive the way back to the indexer: keep the node's reason in the
    // message, and whether a retry can help in the cause.
    throw crossThreads(error, describeError(error))
  }
}

// Last: the pool may end this thread from now on (platform/workers).
markLoaded()
