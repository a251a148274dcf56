/**
 * Writes indexing steps in a single LMDB transaction: the settlements, every index entry, the
 * recipients' covering runs, block hashes and times, running stats and the new indexed head. A crash
 * leaves either all of it or none. The settlements arrive encoded (encoded-batch.ts, mostly built off
 * this thread); what is done here is what depends on the store: ordinals, and the puts.
 */
import { bareIndexValue, dictionaryIdKey, encodeBlockKey, fieldIndexKey, encodeHexKey, encodeTimeKey, INDEX_VALUE_BYTES, indexKeyAt, indexKeyFromString, indexKeyString, indexValueOrdinal, pkAt, POINTER_BYTES, TIME_VALUE, writeIndexValue, writePointer } from './keys.js'
import { readCount, stampLayout, type IndexedHead } from './meta.js'
import { hasOrdinals, INDEXED_FIELDS, type IndexedField, type Store } from './open-store.js'
import { FIXED_BYTES, fieldBytes, type SettlementRecord, type StoredSettlement, type TokenInfo } from './record.js'
import { MAX_COMPACT_BYTES, writeCompactRecord } from './compact-record.js'
import { forgetDictionary, idOf } from './dictionary.js'
import { encodeBatch, keyBytes, NO_KEY, tailStart, type BlockHeader, type EncodedBatch } from './encoded-batch.js'
import { countedWrite } from './settlement-writes.js'
import { mergeStatsChanges, writeStatsChange } from './stats.js'
import { putAmountEntries, writeAmountCounts } from './amounts.js'
import { appendToRuns, type RunAppend } from './covering-runs.js'
import { StoreError } from './store-error.js'

export type { BlockHeader } from './encoded-batch.js'

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
 * The last ordinal of each index key, per field by the key's bytes, remembered between steps so that most
 * entries need no cursor seek (the indexer is the only writer). Bounded: past the limit a field's
 * keys start over from the store.
 */
const MAX_REMEMBERED_KEYS = 1_000_000
const lastOrdinals = new WeakMap<Store, Map<IndexedField, Map<string, number>>>()

/** A rollback rewinds ordinals; what was remembered no longer holds. */
export function forgetOrdinals(store: Store): void {
  lastOrdinals.delete(store)
}

function ordinalsOf(store: Store, field: IndexedField): Map<string, number> {
  let perField = lastOrdinals.get(store)
  if (!perField) lastOrdinals.set(store, (perField = new Map()))
  let ordinals = perField.get(field)
  if (!ordinals || ordinals.size > MAX_REMEMBERED_KEYS) perField.set(field, (ordinals = new Map()))
  return ordinals
}

function lastOrdinal(db: Store['indexes'][IndexedField], key: Buffer): number {
  // A key seen for the first time is the common case in a backfill: a plain get answers it without a cursor.
  if (db.get(key) === undefined) return 0
  for (const value of db.getValues(key, { reverse: true, limit: 1 })) return indexValueOrdinal(value)
  return 0
}

const UNCOUNTED_FIELDS = INDEXED_FIELDS.filter((field) => !hasOrdinals(field))

/** Resolves with the committed settlements, ready to publish. */
export function commitBatch(store: Store, step: IndexingStep): Promise<StoredSettlement[]> {
  return commitEncoded(store, [encodeBatch(step.records, step.blocks, step.head)], step.tokens)
}

/**
 * Commits several encoded batches, in chain order, as one step: one transaction, one sync. Larger
 * transactions write each touched index page once for more entries. Resolves with the committed
 * settlements, ready to publish.
 */
export async function commitEncoded(store: Store, batches: EncodedBatch[], tokens: TokenInfo[] = []): Promise<StoredSettlement[]> {
  const last = batches.at(-1)
  if (!last) throw new StoreError('nothing to commit')
  return countedWrite(store, () =>
    store.env.transaction(() => {
      for (const token of tokens) store.tokens.putSync(encodeHexKey(token.address), token)
      const before = readCount(store)
      if (before === 0) stampLayout(store)
      let count = before
      // Runs are written once per transaction: a run that gains settlements from several batches is rewritten once.
      const runs: RunAppend[] = []
      for (const batch of batches) {
        writeBatch(store, batch, count, runs)
        count += batch.count
      }
      appendToRuns(store, runs)
      writeStatsChange(store, mergeStatsChanges(batches.map((batch) => batch.stats)))
      writeAmountCounts(store, batches.map((batch) => batch.amountCounts))
      store.meta.putSync('count', count)
      store.meta.putSync('head', last.head)
      return storedSettlements(batches, before + 1)
    }).catch((error: unknown) => {
      // Ordinals and ids remembered inside the failed transaction were never stored.
      forgetOrdinals(store)
      forgetDictionary(store)
      throw error
    }),
  )
}

/**
 * One batch's puts, its settlements numbered from `count + 1`, inside the write transaction; their
 * records go to `runs`, to be appended to their recipients' runs once per transaction.
 */
function writeBatch(store: Store, batch: EncodedBatch, count: number, runs: RunAppend[]): void {
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength)
  const { starts, timestamps } = batch
  const pks: Buffer[] = new Array(batch.count)
  const fixedAt = new Uint32Array(batch.count)
  for (let i = 0; i < batch.count; i++) {
    pks[i] = pkAt(bytes, starts[i]!)
    fixedAt[i] = starts[i + 1]! - FIXED_BYTES
  }

  // Per settlement, its recipient's id and its ordinal among that recipient's: where its record goes.
  const recipientIds = new Uint32Array(batch.count)
  const recipientOrdinals = new Uint32Array(batch.count)
  const tokenIds = new Uint32Array(batch.count)
  for (const { field, ids, keys } of batch.counted) {
    const db = store.indexes[field]
    const [from, to] = keyBytes(field)
    const ordinals = ordinalsOf(store, field)
    const next = keys.map((key) => ordinals.get(key) ?? lastOrdinal(db, indexKeyFromString(key)))
    const values = Buffer.allocUnsafe(batch.count * INDEX_VALUE_BYTES)
    for (let i = 0; i < batch.count; i++) {
      const id = ids[i]!
      if (id === NO_KEY) continue
      db.putSync(indexKeyAt(bytes, fixedAt[i]! + from, fixedAt[i]! + to), writeIndexValue(values, i * INDEX_VALUE_BYTES, pks[i]!, ++next[id]!))
      if (field === 'recipient') recipientOrdinals[i] = next[id]!
    }
    keys.forEach((key, id) => ordinals.set(key, next[id]!))
    if (field === 'recipient' || field === 'token') {
      const dictionaryIds = keys.map((key) => idOf(store, field, key))
      const into = field === 'recipient' ? recipientIds : tokenIds
      for (let i = 0; i < batch.count; i++) into[i] = dictionaryIds[ids[i]!]!
      if (field === 'token') {
        const idKeys = dictionaryIds.map((id) => dictionaryIdKey(id))
        for (let i = 0; i < batch.count; i++) putAmountEntries(store, idKeys[ids[i]!]!, batch.amounts[i]!, pks[i]!)
      }
    }
  }
  for (const field of UNCOUNTED_FIELDS) {
    const db = store.indexes[field]
    const [from, to] = keyBytes(field)
    for (let i = 0; i < batch.count; i++) db.putSync(fieldIndexKey(field, indexKeyAt(bytes, fixedAt[i]! + from, fixedAt[i]! + to)), bareIndexValue(pks[i]!))
  }

  const [domainFrom, domainTo] = fieldBytes('domainSeparator')
  const pointers = Buffer.allocUnsafe(batch.count * POINTER_BYTES)
  const records = Buffer.allocUnsafe(batch.count * MAX_COMPACT_BYTES)
  let p = 0
  for (let i = 0; i < batch.count; i++) {
    const domainId = idOf(store, 'domain', indexKeyString(bytes, fixedAt[i]! + domainFrom, fixedAt[i]! + domainTo))
    const end = writeCompactRecord(records, p, timestamps[i]!, count + i + 1, tokenIds[i]!, domainId, bytes, tailStart(starts[i]!))
    runs.push({ recipientId: recipientIds[i]!, ordinal: recipientOrdinals[i]!, pk: pks[i]!, record: records.subarray(p, end) })
    p = end
    // Primary keys only grow (a rollback removes everything above the ancestor first): MDB_APPEND.
    store.events.putSync(pks[i]!, writePointer(pointers, i * POINTER_BYTES, recipientIds[i]!, recipientOrdinals[i]!), { append: true })
  }

  for (const header of batch.blocks) {
    store.blocks.putSync(encodeBlockKey(header.blockNumber), encodeHexKey(header.blockHash))
    store.times.putSync(encodeTimeKey(header.timestamp, header.blockNumber), TIME_VALUE)
  }
  store.blocks.putSync(encodeBlockKey(batch.head.blockNumber), encodeHexKey(batch.head.blockHash))
}

/** The committed settlements as listeners take them, read back from the batches' bytes. */
function storedSettlements(batches: EncodedBatch[], firstOrdinal: number): StoredSettlement[] {
  const out: StoredSettlement[] = []
  let ordinal = firstOrdinal
  for (const batch of batches) {
    const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength)
    for (let i = 0; i < batch.count; i++) {
      let p = tailStart(batch.starts[i]!)
      const end = batch.starts[i + 1]!
      const amountLength = bytes[p] === 0xd9 ? bytes[++p]! : bytes[p]! & 0x1f
      const amount = bytes.toString('latin1', p + 1, (p += 1 + amountLength))
      const feeLength = bytes[p] === 0xd9 ? bytes[++p]! : bytes[p]! & 0x1f
      const fee = bytes.toString('latin1', p + 1, p + 1 + feeLength)
      const hex = bytes.toString('hex', end - FIXED_BYTES, end)
      out.push({ blockNumber: batch.blockNumbers[i]!, logIndex: batch.logIndexes[i]!, timestamp: batch.timestamps[i]!, amount, fee, hex, ordinal: ordinal++ })
    }
  }
  return out
}
