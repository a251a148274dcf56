/**
 * The store's small fixed reads the API answers inline: the indexed head (`GET /`) and the `/stats` body.
 */
import { HOUR_SECONDS, readCount, readHead, readStats, type IndexedHead, type Store } from '../store/index.js'
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
