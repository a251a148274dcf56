/**
 * Whether a settlement write is in flight on a store (store/settlement-writes.ts), for the api's page
 * cache, which stands aside meanwhile as the query layer's key views do. The api asks; it never sees the counts.
 */
import { settlementWrites, type Store } from '../store/index.js'

/** A check of `store` to call as often as needed: the counts are looked up once. */
export function writeInFlight(store: Store): () => boolean {
  const writes = settlementWrites(store)
  return () => writes.started !== writes.settled
}
