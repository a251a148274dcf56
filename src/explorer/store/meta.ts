/**
 * Small named values: the indexed position (written in the same transaction as the settlements it
 * covers), the settlement count, the identity of the indexed contract, the store layout, and token metadata.
 */
import type { Hex } from '../../wire/index.js'
import type { Store } from './open-store.js'
import type { TokenInfo } from './record.js'
import { ConfigError } from '../../config/index.js'

export interface IndexedHead {
  blockNumber: number
  blockHash: Hex
}

export interface StoreIdentity {
  chainId: number
  contract: Hex
}

export const readHead = (store: Store) => store.meta.get('head') as IndexedHead | undefined
export const readCount = (store: Store) => (store.meta.get('count') as number | undefined) ?? 0
/** Bumped by every rollback: what was read before may have been taken back. */
export const readGeneration = (store: Store) => (store.meta.get('generation') as number | undefined) ?? 0
export const readIdentity = (store: Store) => store.meta.get('identity') as StoreIdentity | undefined

/** Binds a data directory to one chain and contract, so a stale directory is never served as another's. */
export async function claimIdentity(store: Store, identity: StoreIdentity): Promise<void> {
  const existing = readIdentity(store)
  if (!existing) {
    await store.meta.put('identity', identity)
    return
  }
  if (existing.chainId !== identity.chainId || existing.contract !== identity.contract) {
    throw new ConfigError(
      `data directory holds chain ${existing.chainId} contract ${existing.contract}, not chain ${identity.chainId} contract ${identity.contract}; use another DATA_DIR`,
    )
  }
}

/**
 * The layout of keys and indexes this code reads and writes. 1: the first release (no layout entry).
 * Each later layout and what it added are in LAYOUT_ADDITIONS. Bump it whenever settlements written by
 * older code would be read wrongly or incompletely, so that an old data directory is refused instead
 * of served with an index missing.
 */
export const STORE_LAYOUT = 7
const LAYOUT_ADDITIONS: Record<number, string> = {
  2: 'the self-payment index the address filter counts with',
  3: 'the statistics buckets (per recipient, acquirer and hour) that filtered /stats and /stats/series read',
  4: 'the amount index (per token, settlements in amount order with length-prefixed amounts, and amount bucket counts) that amount ranges read',
  5: 'the amount classes (per token and amount class, settlements in chain order) whose merge pages narrow amount ranges',
  6: "the recipients' covering runs (each recipient's settlements copied in chain order) that recipient pages read",
  7: "records stored once, in their recipient's runs, with ids for tokens, domain separators and recipients",
}
export const readLayout = (store: Store) => (store.meta.get('layout') as number | undefined) ?? 1
export const stampLayout = (store: Store) => store.meta.putSync('layout', STORE_LAYOUT)

/**
 * Refuses a store whose settlements were written with another layout. A store without settlements has
 * nothing to read wrongly: it takes the current layout (as `commitBatch` stamps on the first settlements).
 */
export function claimLayout(store: Store, dataDir: string): void {
  const layout = readLayout(store)
  if (layout === STORE_LAYOUT) return
  if (readCount(store) > 0) {
    const missing = Object.entries(LAYOUT_ADDITIONS)
      .filter(([version]) => Number(version) > layout && Number(version) <= STORE_LAYOUT)
      .map(([, what]) => what)
    const why = missing.length > 0 ? `it adds ${missing.join('; and ')}` : 'it reads the store differently'
    throw new ConfigError(
      `data directory ${dataDir} holds store layout ${layout}, this explorer needs layout ${STORE_LAYOUT} (${why}); ` +
        (layout === 6
          ? `convert it into a new directory beside the explorer serving from it (npm run explorer -- migrate <dir>), or set another DATA_DIR to index again`
          : 'delete it or set another DATA_DIR to index again'),
    )
  }
  stampLayout(store)
}

export function readTokens(store: Store): Map<Hex, TokenInfo> {
  const tokens = new Map<Hex, TokenInfo>()
  for (const { value } of store.tokens.getRange()) {
    const info = value as TokenInfo
    tokens.set(info.address, info)
  }
  return tokens
}
