/**
 * Writes one indexing step in a single LMDB transaction: the settlements, every index entry, block
 * hashes and times, running stats and the new indexed head. A crash leaves either all of it or none.
 */
import type { Hex } from '../types/settlement.js'
import {
  encodeBlockKey,
  encodeHexKey,
  encodeIndexValue,
  encodePk,
  encodeTimeKey,
  indexValueOrdinal,
} from './keys.js'
import { readCount, type IndexedHead } from './meta.js'
import { INDEXED_FIELDS, indexKeyOf, type IndexedField, type Store } from './open-store.js'
import { encodeRecord, type SettlementRecord, type StoredSettlement, type TokenInfo } from './record.js'
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

function lastOrdinal(db: Store['indexes'][IndexedField], key: Buffer): number {
  for (const value of db.getValues(key, { reverse: true, limit: 1 })) return indexValueOrdinal(value)
  return 0
}

/** Resolves with the committed settlements, ready to publish. */
export async function commitBatch(store: Store, step: IndexingStep): Promise<StoredSettlement[]> {
  return store.env.transaction(() => {
    for (const token of step.tokens ?? []) store.tokens.putSync(encodeHexKey(token.address), token)
    let count = readCount(store)
    const ordinals = new Map<string, number>()
    const committed: StoredSettlement[] = []

    for (const record of step.records) {
      const pk = encodePk(record.blockNumber, record.logIndex)
      const ordinal = ++count
      store.events.putSync(pk, encodeRecord(record, ordinal))
      const stored = toStored(record, ordinal)
      for (const field of INDEXED_FIELDS) {
        const db = store.indexes[field]
        const key = indexKeyOf(field, stored)
        const cacheKey = field + key.toString('latin1')
        const next = (ordinals.get(cacheKey) ?? lastOrdinal(db, key)) + 1
        ordinals.set(cacheKey, next)
        db.putSync(key, encodeIndexValue(pk, next))
      }
      committed.push(stored)
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

function toStored(record: SettlementRecord, ordinal: number): StoredSettlement {
  return {
    blockNumber: record.blockNumber,
    logIndex: record.logIndex,
    timestamp: record.timestamp,
    txHash: encodeHexKey(record.txHash),
    token: encodeHexKey(record.token),
    payer: encodeHexKey(record.payer),
    recipient: encodeHexKey(record.recipient),
    amount: record.amount.toString(),
    fee: record.fee.toString(),
    reference: encodeHexKey(record.reference),
    domainSeparator: encodeHexKey(record.domainSeparator),
    ordinal,
  }
}
