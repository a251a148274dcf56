/**
 * Single-settlement lookups: by transaction hash (lowest log index) and by order reference (earliest).
 * Both are the first value of a dupsort index, whose values sort in chain order.
 */
import { encodeHexKey } from '../store/keys.js'
import type { IndexedField, Store } from '../store/open-store.js'
import { settlementJson } from '../store/record.js'
import type { Hex } from '../types/settlement.js'
import { load } from './run-events-query.js'
import type { TokenCache } from './token-cache.js'

/** The settlement's JSON text, or `undefined` when none is indexed under that value. */
export function findFirstSettlement(store: Store, tokens: TokenCache, field: IndexedField, value: Hex): string | undefined {
  for (const indexValue of store.indexes[field].getValues(encodeHexKey(value), { limit: 1 })) {
    const s = load(store, indexValue)
    return settlementJson(s, tokens.get(s.token))
  }
  return undefined
}
