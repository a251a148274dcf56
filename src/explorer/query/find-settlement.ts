/**
 * Single-settlement lookups: by transaction hash (lowest log index) and by order reference (earliest).
 * Both are the first value of a dupsort index, whose values sort in chain order: LMDB's plain get of a
 * dupsort key returns that first value, without a cursor or an iterator (a range read of one value
 * cost a lookup about as much again, mostly in garbage).
 */
import { encodeHexKey, indexValuePk, PK_BYTES, readRecord } from '../store/index.js'
import type { IndexedField, Store } from '../store/index.js'
import { recordJson } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { TokenCache } from './token-cache.js'

/** The primary key read from the index, copied out of lmdb-js's shared read buffer before the record's read reuses it. */
const pk = Buffer.alloc(PK_BYTES)

/** The settlement's JSON bytes, or `undefined` when none is indexed under that value. */
export function findFirstSettlement(store: Store, tokens: TokenCache, field: IndexedField, value: Hex): Buffer | undefined {
  const indexValue = store.indexes[field].getBinaryFast(encodeHexKey(value))
  if (!indexValue) return undefined
  pk.set(indexValuePk(indexValue))
  return recordJson(pk, readRecord(store, pk)!, tokens)
}
