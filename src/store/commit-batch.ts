/**
 * Writes one indexing step in a single LMDB transaction: the settlements, every index entry, block
 * hashes and times, running stats and the new indexed head. A crash leaves either all of it or none.
 */
import type { Hex } from '../types/settlement.js'
import { encodeBlockKey, encodeHexKey, encodeIndexValue, encodePk, encodeTimeKey, indexValueOrdinal } from './keys.js'
import { readCount, type IndexedHead } from './meta.js'
import { INDEXED_FIELDS, hasOrdinals, indexKeyOf, type IndexedField, type Store } from './open-store.js'
import { encodeRecord, toStored, type SettlementRecord, type StoredSettlement, type TokenInfo } from './record.js'
import { applyToStats } from './stats.js'

export interface BlockHeader {
  blockNumber: number
  blockHash: Hex
  timestamp: number
}

export interface IndexingStep {
  /** In chain order. */
  records: SettlementRecord[]
  /** Headers of the blocks that hold the records. */
  blocks: BlockHeader[]
  /** The last block this step covers; every block up to it is indexed once the step commits. */
  head: IndexedHead
  /** Tokens first seen in this step. */
  tokens?: TokenInfo[]
}

/**
 * The last ordinal of each index key, remembered between steps so that most entries need no cursor
 * seek (the indexer is the only writer). Bounded: past the limit it starts over from the store.
 */
const MAX_REMEMBERED_KEYS = 1_000_000
const lastOrdinals = new WeakMap<Store, Map<string, number>>()

/** A rollback rewinds ordinals; what was remembered no longer holds. */
export function forgetOrdinals(store: Store): void {
  lastOrdinals.delete(store)
}

function ordinalsOf(store: Store): Map<string, number> {
  let ordinals = lastOrdinals.get(store)
  if (!ordinals || ordinals.size > MAX_REMEMBERED_KEYS) lastOrdinals.set(store, (ordinals = new Map()))
  return ordinals
}

function lastOrdinal(db: Store['indexes'][IndexedField], key: Buffer): number {
  for (const value of db.getValues(key, { reverse: true, limit: 1 })) return indexValueOrdinal(value)
  return 0
}

/** Resolves with the committed settlements, ready to publish. */
export async function commitBatch(store: Store, step: IndexingStep): Promise<StoredSettlement[]> {
  const committed = step.records.map((record) => toStored(record, 0))
  const counted = INDEXED_FIELDS.filter(hasOrdinals)
  const uncounted = INDEXED_FIELDS.filter((field) => !hasOrdinals(field))
  return store.env.transaction(() => {
    for (const token of step.tokens ?? []) store.tokens.putSync(encodeHexKey(token.address), token)
    const ordinals = ordinalsOf(store)
    let count = readCount(store)
    for (const stored of committed) {
      const pk = encodePk(stored.blockNumber, stored.logIndex)
      stored.ordinal = ++count
      // Primary keys only grow (a rollback removes everything above the ancestor first): MDB_APPEND.
      store.events.putSync(pk, encodeRecord(stored), { append: true })
      for (const field of counted) {
        const db = store.indexes[field]
        const key = indexKeyOf(field, stored)
        const remembered = field + key.toString('latin1')
        const next = (ordinals.get(remembered) ?? lastOrdinal(db, key)) + 1
        ordinals.set(remembered, next)
        db.putSync(key, encodeIndexValue(pk, next))
      }
      for (const field of uncounted) store.indexes[field].putSync(indexKeyOf(field, stored), pk)
    }

    for (const header of step.blocks) {
      store.blocks.putSync(encodeBlockKey(header.blockNumber), encodeHexKey(header.blockHash))
      store.times.putSync(encodeTimeKey(header.timestamp, header.blockNumber), Buffer.alloc(0))
    }
    store.blocks.putSync(encodeBlockKey(step.head.blockNumber), encodeHexKey(step.head.blockHash))
    applyToStats(store, committed, 1)
    store.meta.putSync('count', count)
    store.meta.putSync('head', step.head)
    return committed
  })
}
