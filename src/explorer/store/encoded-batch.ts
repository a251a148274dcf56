/**
 * Settlements encoded for the store ahead of their commit: primary keys and record bytes in one
 * buffer, and per counted index a key id per settlement. It is built where the settlements were
 * decoded — an indexing worker during backfill — and crosses to the committing thread as a few typed
 * arrays and short lists (a structured clone copies bytes quickly; large object graphs it does not).
 * What is left for the commit is what depends on the store's state: ordinals, and the writes.
 */
import type { IndexedHead } from './meta.js'
import { decodeBareHexKey, indexKeyFromString, indexKeyString, PK_BYTES, writePk } from './keys.js'
import { hasOrdinals, INDEXED_FIELDS, type IndexedField } from './open-store.js'
import { FIXED_BYTES, fieldBytes, RECORD_HEAD_ROOM, recordTailBytes, writeRecordTail, type SettlementRecord } from './record.js'
import { addToStatsChange, emptyStatsChange, type StatsChange } from './stats.js'
import { addToBuckets } from './buckets.js'
import { amountChange, type AmountChange } from './amounts.js'
import type { Hex } from '../../wire/index.js'
import { StoreError } from './store-error.js'

export interface BlockHeader {
  blockNumber: number
  blockHash: Hex
  timestamp: number
}

/** The settlements of a counted index (ordinals in its values), by key. */
export interface CountedKeys {
  field: IndexedField
  /** Per settlement, the position of its key in `keys`; NO_KEY when it has none (`selfPayment`). */
  ids: Uint32Array
  /** Distinct keys as `indexKeyString` gives them, in order of first use. */
  keys: string[]
}

export const NO_KEY = 0xffff_ffff

export interface EncodedBatch {
  count: number
  /**
   * Per settlement from `starts[i]`: primary key, RECORD_HEAD_ROOM bytes left for the record's head
   * (written at commit, with the ordinal), then the record's tail up to `starts[i + 1]`.
   */
  bytes: Uint8Array
  starts: Uint32Array
  blockNumbers: Float64Array
  logIndexes: Uint32Array
  timestamps: Uint32Array
  counted: CountedKeys[]
  /** Headers of the blocks that hold the settlements. */
  blocks: BlockHeader[]
  /** The last block the batch covers; every block up to it is indexed once it commits. */
  head: IndexedHead
  stats: StatsChange
  /** Each settlement's amount, for the amount index's entries. */
  amounts: bigint[]
  /** The amount index's count changes (amounts.ts). */
  amountCounts: AmountChange
}

export const COUNTED_FIELDS = INDEXED_FIELDS.filter(hasOrdinals)

/** Where a settlement's record starts its tail (the head is written backwards from here). */
export const tailStart = (start: number) => start + PK_BYTES + RECORD_HEAD_ROOM

/** The bytes of the record's fixed run an index key is made of, per field (`selfPayment` is keyed by the payer; keys.ts `fieldIndexKey`). */
export const keyBytes = (field: IndexedField) => fieldBytes(field === 'selfPayment' ? 'payer' : field)

/** Settlements as a batch reads them, by position: from decoded records, or straight from a node's response bytes. */
export interface SettlementSource {
  count: number
  blockNumber(i: number): number
  logIndex(i: number): number
  timestamp(i: number): number
  amount(i: number): bigint
  fee(i: number): bigint
  /** Writes the FIXED_BYTES run (as in StoredSettlement.hex) at `p`; throws when a field is malformed. */
  writeFixed(i: number, out: Buffer, p: number): void
}

/** `records` in chain order, lowercase hex (as decodeSettlementLog gives them). */
export function encodeBatch(records: SettlementRecord[], blocks: BlockHeader[], head: IndexedHead): EncodedBatch {
  return encodeSettlements(
    {
      count: records.length,
      blockNumber: (i) => records[i]!.blockNumber,
      logIndex: (i) => records[i]!.logIndex,
      timestamp: (i) => records[i]!.timestamp,
      amount: (i) => records[i]!.amount,
      fee: (i) => records[i]!.fee,
      writeFixed: (i, out, p) => writeFixedHex(out, p, records[i]!),
    },
    blocks,
    head,
  )
}

export function encodeSettlements(source: SettlementSource, blocks: BlockHeader[], head: IndexedHead): EncodedBatch {
  const { count } = source
  const amounts = Array.from({ length: count }, (_, i) => source.amount(i))
  const fees = Array.from({ length: count }, (_, i) => source.fee(i))
  const amountTexts = amounts.map(String)
  const feeTexts = fees.map(String)
  const starts = new Uint32Array(count + 1)
  let size = 0
  for (let i = 0; i < count; i++) {
    starts[i] = size
    size += PK_BYTES + RECORD_HEAD_ROOM + recordTailBytes(amountTexts[i]!, feeTexts[i]!)
  }
  starts[count] = size
  // Zeroed: the room left for record heads is then the same in every batch of the same settlements.
  const bytes = Buffer.alloc(size)
  const blockNumbers = new Float64Array(count)
  const logIndexes = new Uint32Array(count)
  const timestamps = new Uint32Array(count)
  for (let i = 0; i < count; i++) {
    const start = starts[i]!
    blockNumbers[i] = source.blockNumber(i)
    logIndexes[i] = source.logIndex(i)
    timestamps[i] = source.timestamp(i)
    writePk(bytes, start, blockNumbers[i]!, logIndexes[i]!)
    const end = writeRecordTail(bytes, tailStart(start), amountTexts[i]!, feeTexts[i]!)
    source.writeFixed(i, bytes, end - FIXED_BYTES)
  }
  const counted = COUNTED_FIELDS.map((field) => countedKeys(field, bytes, starts, count))

  const stats = emptyStatsChange()
  const keysOf = (field: IndexedField) => {
    const { ids, keys } = counted.find((c) => c.field === field)!
    return (i: number) => keys[ids[i]!]!
  }
  const tokens = counted.find((c) => c.field === 'token')!
  const tokenHex = tokens.keys.map((key) => decodeBareHexKey(indexKeyFromString(key)))
  const [token, recipient, acquirerId] = [keysOf('token'), keysOf('recipient'), keysOf('acquirerId')]
  for (let i = 0; i < count; i++) {
    addToStatsChange(stats, tokenHex[tokens.ids[i]!]!, timestamps[i]!, amounts[i]!, fees[i]!, 1)
    const parties = { token: token(i), recipient: recipient(i), acquirerId: acquirerId(i) }
    addToBuckets(stats.buckets, parties, timestamps[i]!, amounts[i]!, fees[i]!, 1)
  }
  const amountWrites = amountChange(amounts, (i) => tokens.keys[tokens.ids[i]!]!)
  return { count, bytes, starts, blockNumbers, logIndexes, timestamps, counted, blocks, head, stats, amounts, amountCounts: amountWrites }
}

/** The keys of a counted index, read from the fixed runs just written, each distinct one given an id. */
function countedKeys(field: IndexedField, bytes: Buffer, starts: Uint32Array, count: number): CountedKeys {
  const [from, to] = keyBytes(field)
  const [recipientFrom] = fieldBytes('recipient')
  const ids = new Uint32Array(count)
  const seen = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    const fixed = starts[i + 1]! - FIXED_BYTES
    // A self-payment is one whose payer and recipient are the same 20 bytes.
    if (field === 'selfPayment' && bytes.compare(bytes, fixed + recipientFrom, fixed + recipientFrom + 20, fixed + from, fixed + to) !== 0) {
      ids[i] = NO_KEY
      continue
    }
    const key = indexKeyString(bytes, fixed + from, fixed + to)
    let id = seen.get(key)
    if (id === undefined) seen.set(key, (id = seen.size))
    ids[i] = id
  }
  return { field, ids, keys: [...seen.keys()] }
}

/** txHash ‖ token ‖ payer ‖ recipient ‖ orderReference ‖ acquirerId ‖ domainSeparator, as StoredSettlement.hex. */
function writeFixedHex(out: Buffer, p: number, r: SettlementRecord): void {
  const end = p + FIXED_BYTES
  for (const hex of [r.txHash, r.token, r.payer, r.recipient, r.reference, r.domainSeparator]) p += out.write(hex.slice(2), p, 'hex')
  if (p !== end || r.txHash.length !== 66 || r.token.length !== 42 || r.payer.length !== 42 || r.recipient.length !== 42 || r.reference.length !== 66) {
    throw new StoreError(`settlement ${r.txHash}:${r.logIndex} has a malformed field`)
  }
}
