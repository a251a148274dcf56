/**
 * Rendered settlement JSON (UTF-8 bytes) by primary key, one cache per thread (each thread opens its own Store). A
 * committed settlement never changes except through a rollback, which bumps the store's generation;
 * the cache empties itself when a query sees a new one. Bounded by entries (about 0.7 KB each), and
 * the oldest entries go first: recent settlements are the ones pages ask for.
 */
import { readGeneration } from '../store/meta.js'
import type { Store } from '../store/open-store.js'
import { decodeRecord, fieldHex, settlementJson } from '../store/record.js'
import type { TokenCache } from './token-cache.js'

const MAX_ENTRIES = 50_000

interface RenderCache {
  generation: number
  rendered: Map<string, Buffer>
}

const caches = new WeakMap<Store, RenderCache>()

/** Call once per query, before rendering: drops everything if a rollback happened since. */
export function syncRenderCache(store: Store): void {
  const generation = readGeneration(store)
  const cache = caches.get(store)
  if (!cache || cache.generation !== generation) caches.set(store, { generation, rendered: new Map() })
}

/** Bytes, not text: a page is then one Buffer.concat, and uWS sends it without re-encoding. */
export function renderSettlement(store: Store, tokens: TokenCache, pk: Buffer): Buffer {
  const { rendered } = caches.get(store) ?? { rendered: new Map<string, Buffer>() }
  const id = pk.toString('latin1')
  let json = rendered.get(id)
  if (json === undefined) {
    const s = decodeRecord(pk, store.events.getBinaryFast(pk)!)
    json = Buffer.from(settlementJson(s, tokens.get(fieldHex(s, 'token'))))
    if (rendered.size >= MAX_ENTRIES) rendered.delete(rendered.keys().next().value!)
    rendered.set(id, json)
  }
  return json
}
