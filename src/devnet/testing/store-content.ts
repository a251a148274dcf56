/**
 * Every key and value of every database of an explorer store, hashed: two stores that hold the same
 * bytes hash alike. The store's tests compare stores built two ways with it, and the benchmarks key their
 * cached stores by it (a change of any database's layout or encoding rebuilds them).
 */
import { createHash } from 'node:crypto'
import { amountsDb, type Store } from '../../explorer/store/index.js'

export function storeContentHash(store: Store): string {
  const hash = createHash('sha256')
  const dbs = [store.events, ...Object.values(store.indexes), store.runs, store.ids, store.times, store.blocks, store.tokens, store.stats, store.hours, store.buckets, store.meta, amountsDb(store)]
  for (const db of dbs) {
    for (const { key, value } of (db as Store['events']).getRange()) {
      hash.update(Buffer.isBuffer(key) ? key : JSON.stringify(key))
      hash.update(Buffer.isBuffer(value) ? value : JSON.stringify(value))
    }
  }
  return hash.digest('hex')
}
