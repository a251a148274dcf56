/**
 * Single-settlement lookups: by transaction hash (lowest log index) and by order reference (earliest).
 * Both are the first value of a dupsort index, whose values sort in chain order.
 */
import { encodeHexKey, indexValuePk } from '../store/index.js'
import type { IndexedField, Store } from '../store/index.js'
import { recordJson } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { TokenCache } from './token-cache.js'

/** The settlement's JSON bytes, or `undefined` when none is indexed under that value. */
export function findFirstSettlement(store: Store, tokens: TokenCache, field: IndexedField, value: Hex): Buffer | undefined {
  for (const indexValue of store.indexes[field].getValues(encodeHexKey(value), { limit: 1 })) {
    const pk = indexValuePk(indexValue)
    return recordJson(pk, store.events.getBinaryFast(pk)!, tokens)
  }
  return undefined
}
