/**
 * Settlement writes (commitBatch, rollbackAbove) counted per store, started and settled. lmdb-js
 * commits on its write thread, so a fresh read may see a write before its promise resolves and the
 * indexer reports it: between a write's start and its settling, what readers see can change at any
 * moment. The page cache stands aside while a write is in flight (api/rest/page-cache.ts); the
 * report follows the settling within the same event-loop turn (the indexer's continuation).
 */
import type { Store } from './open-store.js'

export interface WriteCounts {
  started: number
  settled: number
}

const counts = new WeakMap<Store, WriteCounts>()

export function settlementWrites(store: Store): WriteCounts {
  let c = counts.get(store)
  if (!c) counts.set(store, (c = { started: 0, settled: 0 }))
  return c
}

export async function countedWrite<T>(store: Store, write: () => Promise<T>): Promise<T> {
  const c = settlementWrites(store)
  c.started++
  try {
    return await write()
  } finally {
    c.settled++
  }
}
