/**
 * Single-settlement lookups: by transaction hash (lowest log index) and by order reference (earliest).
 * Both are the first value of a dupsort index, whose values sort in chain order: LMDB's plain get of a
 * dupsort key returns that first value, without a cursor or an iterator (a range read of one value
 * cost a lookup about as much again, mostly in garbage). A transaction hash's index key is 8 bytes
 * folded from it (store/keys.ts `fieldIndexKey`): its values are read until one's record has the whole hash.
 */
import { encodeHexKey, fieldIndexKey, indexValuePk, PK_BYTES, readRecord, storedOfTx } from '../store/index.js'
import type { IndexedField, Store } from '../store/index.js'
import { recordJson } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { TokenCache } from './token-cache.js'

/** The primary key read from the index, copied out of lmdb-js's shared read buffer before the record's read reuses it. */
const pk = Buffer.alloc(PK_BYTES)

/** The settlement's JSON bytes, or `undefined` when none is indexed under that value. */
export function findFirstSettlement(store: Store, tokens: TokenCache, field: IndexedField, value: Hex): Buffer | undefined {
  const key = encodeHexKey(value)
  if (field === 'txHash') return firstOfTx(store, tokens, key)
  const indexValue = store.indexes[field].getBinaryFast(key)
  if (!indexValue) return undefined
  pk.set(indexValuePk(indexValue))
  return recordJson(pk, readRecord(store, pk)!, tokens, store)
}

/**
 * The first value under the hash's 8-byte key whose record has the whole hash. The key's first value
 * is read with a plain get (as above); the rest, other hashes folded to the same key, only when that
 * one's record is of another transaction.
 */
function firstOfTx(store: Store, tokens: TokenCache, txHash: Buffer): Buffer | undefined {
  const key = fieldIndexKey('txHash', txHash)
  const first = store.indexes.txHash.getBinaryFast(key)
  if (!first) return undefined
  pk.set(indexValuePk(first))
  const record = readRecord(store, pk)!
  if (storedOfTx(record, txHash)) return recordJson(pk, record, tokens, store)
  for (const value of store.indexes.txHash.getValues(key)) {
    const other = readRecord(store, indexValuePk(value))!
    if (storedOfTx(other, txHash)) return recordJson(indexValuePk(value), other, tokens, store)
  }
  return undefined
}
