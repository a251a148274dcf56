/**
 * The store's small fixed reads the API answers inline: the indexed head (`GET /`) and the `/stats` body.
 */
import { decodeHexKey, decodePk, encodeBlockKey, HOUR_SECONDS, readCount, readGeneration, readHead, readStats, type IndexedHead, type Store } from '../store/index.js'
import type { TokenCache } from './token-cache.js'

export function indexedHead(store: Store): IndexedHead | undefined {
  return readHead(store)
}

/**
 * `/stats` changes only when the indexer commits or rolls back, or when the hour (the `last24h`
 * window) turns: the body is rebuilt then, not on every request.
 */
export function statsBody(store: Store, tokens: TokenCache): () => Buffer {
  let key = ''
  let body = Buffer.alloc(0)
  return () => {
    const now = Date.now() / 1000
    const head = readHead(store)
    const current = `${head?.blockNumber}:${head?.blockHash}:${readCount(store)}:${Math.floor(now / HOUR_SECONDS)}`
    if (current !== key) {
      body = Buffer.from(JSON.stringify(readStats(store, (a) => tokens.get(a), now)))
      key = current
    }
    return body
  }
}

/**
 * What the settlements indexed are, in a few bytes: their count and the hash of the newest settlement's
 * block. Any commit of a settlement raises the count; a reorg that takes some back and brings as many
 * changes the newest block's hash. Two replicas that hold the same settlements give the same answer.
 * `generation` counts this store's rollbacks.
 */
export function settlementsVersion(store: Store): { count: number; newestBlockHash: string; generation: number } {
  const count = readCount(store)
  const generation = readGeneration(store)
  for (const key of store.events.getKeys({ reverse: true, limit: 1 })) {
    const hash = store.blocks.get(encodeBlockKey(decodePk(key).blockNumber))
    return { count, newestBlockHash: hash ? decodeHexKey(hash) : '', generation }
  }
  return { count, newestBlockHash: '', generation }
}

/** The hour `last24h` ends with: `/stats` answers change when it turns. */
export const currentHour = () => Math.floor(Date.now() / 1000 / HOUR_SECONDS)
