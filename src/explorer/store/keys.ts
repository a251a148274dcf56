/**
 * The one place that knows how LMDB keys and index values are laid out. Everything else asks here.
 *
 * - Primary key: block number (6 bytes, big-endian) ‖ log index (4 bytes) = 10 bytes, so byte order is
 *   chain order and keyset paging is a plain range.
 * - Index key: the raw bytes of the field's value (20 for addresses, 16 for order references and
 *   acquirer ids, 32 for hashes), as they sit in the record's fixed run; `selfPayment` is keyed by the payer.
 * - Index value (dupsort): primary key ‖ ordinal (4 bytes) for fields whose values repeat (see
 *   `hasOrdinals`), the bare primary key for the others. The ordinal is the 1-based position of the
 *   settlement among those with the same key, so the number of matches between two positions is a
 *   difference of two ordinals: exact totals without counting at query time. Either way a value sorts
 *   by its primary key first.
 * - Time key: timestamp (4 bytes) ‖ block (6 bytes), one entry per block that holds settlements; no value.
 * - Block key: block (6 bytes); its value is the block hash's 32 bytes (`encodeHexKey`).
 * - Token key (tokens, per-token stats): the address's 20 bytes (`encodeHexKey`).
 * - Hour key: hour since epoch (4 bytes) ‖ token (20 bytes), for the rolling 24-hour figures.
 * - Primary value: where the settlement's record is, recipient id (4 bytes) ‖ its ordinal in the
 *   recipient index (4 bytes): records are stored once, in their recipient's runs (layout 7).
 * - Run key: recipient id (4 bytes) ‖ run number (4 bytes): a recipient's settlements, whole (below).
 * - Dictionary key: kind (1 byte) ‖ the value's bytes → id (4 bytes); kind + 0x80 ‖ id → the bytes.
 *
 * The commit writes a batch's keys and values at offsets into buffers allocated once per batch, and
 * hands LMDB views of them (`writePk`, `pkAt`, `indexKeyAt`, `writeIndexValue`): no bytes per entry.
 */
import type { Hex } from '../../wire/index.js'

export const PK_BYTES = 10
const ORDINAL_BYTES = 4
export const INDEX_VALUE_BYTES = PK_BYTES + ORDINAL_BYTES

export interface Position {
  blockNumber: number
  logIndex: number
}

/** Writes the primary key of a position at `out[at]` and returns where it ends. */
export function writePk(out: Buffer, at: number, blockNumber: number, logIndex: number): number {
  out.writeUIntBE(blockNumber, at, 6)
  return out.writeUInt32BE(logIndex, at + 6)
}

export function encodePk(blockNumber: number, logIndex: number): Buffer {
  const key = Buffer.allocUnsafe(PK_BYTES)
  writePk(key, 0, blockNumber, logIndex)
  return key
}

/** The primary key written at `bytes[at]`, as a view (no copy). */
export function pkAt(bytes: Buffer, at: number): Buffer {
  return bytes.subarray(at, at + PK_BYTES)
}

export function decodePk(key: Uint8Array): Position {
  // By hand rather than through a Buffer view: this runs for every settlement read.
  const low = ((key[2]! << 24) | (key[3]! << 16) | (key[4]! << 8) | key[5]!) >>> 0
  const blockNumber = (key[0]! * 2 ** 8 + key[1]!) * 2 ** 32 + low
  const logIndex = ((key[6]! << 24) | (key[7]! << 16) | (key[8]! << 8) | key[9]!) >>> 0
  return { blockNumber, logIndex }
}

/** The first primary key after a position: the inclusive start of "everything after it". */
export function keyAfter(p: Position): Buffer {
  return p.logIndex >= 0xffff_ffff ? encodePk(p.blockNumber + 1, 0) : encodePk(p.blockNumber, p.logIndex + 1)
}

/** The first primary key of a block: a range bound that includes the whole block. */
export function blockStartPk(blockNumber: number): Buffer {
  return encodePk(blockNumber, 0)
}

/** A key just past every settlement of a block (an exclusive upper bound). */
export function blockEndPk(blockNumber: number): Buffer {
  return encodePk(blockNumber + 1, 0)
}

/**
 * The lowest and the highest primary key: [LOWEST_PK, HIGHEST_PK) holds every settlement, as no block
 * reaches 2^48 − 1. Shared: never written to.
 */
export const LOWEST_PK: Buffer = Buffer.alloc(PK_BYTES)
export const HIGHEST_PK: Buffer = Buffer.alloc(PK_BYTES, 0xff)

export const isLowestPk = (key: Buffer) => key.equals(LOWEST_PK)

/** Writes a counted index value (primary key ‖ ordinal) at `out[at]` and returns a view of it. */
export function writeIndexValue(out: Buffer, at: number, pk: Uint8Array, ordinal: number): Buffer {
  out.set(pk, at)
  out.writeUInt32BE(ordinal, at + PK_BYTES)
  return out.subarray(at, at + INDEX_VALUE_BYTES)
}

/** The index value of a field without ordinals: the primary key itself. */
export const bareIndexValue = (pk: Buffer): Buffer => pk

export function indexValuePk(value: Buffer): Buffer {
  return value.subarray(0, PK_BYTES)
}

export function indexValueOrdinal(value: Buffer): number {
  return value.readUInt32BE(PK_BYTES)
}

/** Two index values by their primary keys alone (ordinals aside): negative, zero or positive. */
export function compareIndexValuePks(a: Buffer, b: Buffer): number {
  return a.compare(b, 0, PK_BYTES, 0, PK_BYTES)
}

/** Whether an index value's primary key sorts before `pk`. */
export function indexValueBefore(value: Buffer, pk: Buffer): boolean {
  // A value equal to `pk` in its first PK_BYTES is longer, so it sorts after `pk`: a plain comparison answers.
  return Buffer.compare(value, pk) < 0
}

/**
 * Transaction hashes are indexed by 8 bytes (layout 7): the hash's four 8-byte words XORed together,
 * as unique as the whole 32 among billions of settlements for hashes as a chain makes them, a quarter
 * of the index; a lookup checks the whole hash on the record (query/find-settlement.ts), so a shared key
 * costs a read, never a wrong answer. Folded rather than cut: hashes made up with a counter at their end
 * (a test chain's) still differ in it.
 */
const TX_HASH_KEY_BYTES = 8

/** The index key of a field's value bytes: the bytes themselves (a view), a transaction hash folded to 8. */
export function fieldIndexKey(field: string, value: Buffer): Buffer {
  if (field !== 'txHash') return value
  const key = Buffer.allocUnsafe(TX_HASH_KEY_BYTES)
  for (let i = 0; i < TX_HASH_KEY_BYTES; i++) key[i] = value[i]! ^ value[i + 8]! ^ value[i + 16]! ^ value[i + 24]!
  return key
}

/** Index key of a field value (and token key): the raw bytes of its hex. */
export function encodeHexKey(hex: Hex): Buffer {
  return Buffer.from(hex.slice(2), 'hex')
}

/** The same from lowercase hex without 0x (as stored settlements hold field values). */
export function encodeBareHexKey(bare: string): Buffer {
  return Buffer.from(bare, 'hex')
}

export function decodeHexKey(key: Buffer): Hex {
  return `0x${key.toString('hex')}`
}

/** Lowercase hex without 0x. */
export function decodeBareHexKey(key: Buffer): string {
  return key.toString('hex')
}

/** The index key of a field whose raw bytes are `bytes[start, end)` (a record's fixed run), as a view. */
export function indexKeyAt(bytes: Buffer, start: number, end: number): Buffer {
  return bytes.subarray(start, end)
}

/**
 * The same key as a string of one character per byte: a Map key that costs no hex conversion, and
 * that crosses between threads as is. `indexKeyFromString` gives the key back.
 */
export function indexKeyString(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('latin1', start, end)
}

export function indexKeyFromString(key: string): Buffer {
  return Buffer.from(key, 'latin1')
}

export function encodeTimeKey(timestamp: number, blockNumber: number): Buffer {
  const key = Buffer.allocUnsafe(10)
  key.writeUInt32BE(timestamp, 0)
  key.writeUIntBE(blockNumber, 4, 6)
  return key
}

export function decodeTimeKey(key: Buffer): { timestamp: number; blockNumber: number } {
  return { timestamp: key.readUInt32BE(0), blockNumber: key.readUIntBE(4, 6) }
}

/** The time index keeps nothing beside its keys. Shared: never written to. */
export const TIME_VALUE: Buffer = Buffer.alloc(0)

export function encodeBlockKey(blockNumber: number): Buffer {
  const key = Buffer.allocUnsafe(6)
  key.writeUIntBE(blockNumber, 0, 6)
  return key
}

export function decodeBlockKey(key: Buffer): number {
  return key.readUIntBE(0, 6)
}

export const HOUR_SECONDS = 3600
const ADDRESS_BYTES = 20

export function encodeHourKey(hour: number, token: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(4 + ADDRESS_BYTES)
  key.writeUInt32BE(hour, 0)
  key.set(token, 4)
  return key
}

/** The first hour key of an hour: a range bound below every token's. */
export function hourStartKey(hour: number): Buffer {
  return encodeHourKey(hour, Buffer.alloc(ADDRESS_BYTES))
}

/** `token` as lowercase hex without 0x. */
export function decodeHourKey(key: Buffer): { hour: number; token: string } {
  return { hour: key.readUInt32BE(0), token: key.toString('hex', 4, 4 + ADDRESS_BYTES) }
}

// ---------------------------------------------------------------------------------------------------
// Dictionary (store/dictionary.ts): ids for values that repeat across settlements.
// ---------------------------------------------------------------------------------------------------

export const DICTIONARY_KINDS = { token: 1, domain: 2, recipient: 3 } as const
export type DictionaryKind = keyof typeof DICTIONARY_KINDS
const DICTIONARY_ID_TAG = 0x80

/** kind ‖ value: its id. A kind's number alone with an empty value bounds its range. */
export function encodeDictionaryKey(kind: DictionaryKind | number, value: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(1 + value.length)
  key[0] = typeof kind === 'number' ? kind : DICTIONARY_KINDS[kind]
  key.set(value, 1)
  return key
}

/** kind + 0x80 ‖ id: the value's bytes. */
export function encodeDictionaryIdKey(kind: DictionaryKind, id: number): Buffer {
  const key = Buffer.allocUnsafe(5)
  key[0] = DICTIONARY_KINDS[kind] | DICTIONARY_ID_TAG
  key.writeUInt32BE(id, 1)
  return key
}

// ---------------------------------------------------------------------------------------------------
// Records in runs (store/covering-runs.ts): each recipient's settlements in chain order, whole, in
// runs of RUN_LENGTH, so that any page of a recipient is one or two reads of adjacent bytes instead of
// twenty reads scattered over the store. Since layout 7 this is the only copy of a record: the primary
// database points into the runs.
//
// Run key: recipient id (4 bytes) ‖ run number (4 bytes, big-endian), the run number being
// ⌊(ordinal − 1) / RUN_LENGTH⌋ of the settlement's ordinal in the recipient index. Run value: its
// entries in ordinal order, each primary key (10) ‖ record length (2, big-endian) ‖ the record's bytes
// (store/compact-record.ts).
// ---------------------------------------------------------------------------------------------------

/**
 * Settlements per run. A full run is one 4 KB overflow page (4,080 bytes of it usable) while its
 * entries stay under 156 bytes: about 142 with 6-decimal amounts, 154 with 18-decimal ones. Fewer per
 * run would leave the page emptier; more would spill a run of larger records onto a second page.
 */
export const RUN_LENGTH = 26
const RUN_NUMBER_BYTES = 4
export const RUN_ENTRY_HEAD_BYTES = PK_BYTES + 2
const RECIPIENT_ID_BYTES = 4

/** The run that holds the settlement with this 1-based ordinal. */
export const runOf = (ordinal: number) => Math.floor((ordinal - 1) / RUN_LENGTH)

/** Recipient ids stay below 2^32 and run numbers below 2^21 (2^26 settlements of one recipient): one number names a run. */
export const runNumber = (recipientId: number, run: number) => recipientId * 2 ** 21 + run

export function encodeRunKey(recipientId: number, run: number): Buffer {
  const key = Buffer.allocUnsafe(RECIPIENT_ID_BYTES + RUN_NUMBER_BYTES)
  key.writeUInt32BE(recipientId, 0)
  key.writeUInt32BE(run, RECIPIENT_ID_BYTES)
  return key
}

/** The primary database's value: the recipient id and ordinal that find the record in its runs. */
export const POINTER_BYTES = 8

export function writePointer(out: Buffer, at: number, recipientId: number, ordinal: number): Buffer {
  out.writeUInt32BE(recipientId, at)
  out.writeUInt32BE(ordinal, at + 4)
  return out.subarray(at, at + POINTER_BYTES)
}

export function decodePointer(v: Uint8Array): { recipientId: number; ordinal: number } {
  // By hand rather than through a Buffer view: this runs for every record read by its primary key.
  return { recipientId: ((v[0]! << 24) | (v[1]! << 16) | (v[2]! << 8) | v[3]!) >>> 0, ordinal: ((v[4]! << 24) | (v[5]! << 16) | (v[6]! << 8) | v[7]!) >>> 0 }
}

/** Writes a run entry's head (primary key, record length) at `out[at]`; the record follows it. */
export function writeRunEntryHead(out: Buffer, at: number, pk: Uint8Array, recordBytes: number): number {
  out.set(pk, at)
  return out.writeUInt16BE(recordBytes, at + PK_BYTES)
}

/** The record length in the head of the run entry at `run[at]` (by hand: this runs for every record read). */
export function runEntryRecordBytes(run: Uint8Array, at: number): number {
  return (run[at + PK_BYTES]! << 8) | run[at + PK_BYTES + 1]!
}

/** Where each entry of a run starts, in order. */
export function runEntryStarts(run: Buffer): number[] {
  const starts: number[] = []
  for (let at = 0; at < run.length; at += RUN_ENTRY_HEAD_BYTES + runEntryRecordBytes(run, at)) starts.push(at)
  return starts
}

/** Where the entry at `index` (0-based) of a run starts, or undefined past its last: no list made. */
export function runEntryStart(run: Uint8Array, index: number): number | undefined {
  let at = 0
  for (let i = 0; i < index && at < run.length; i++) at += RUN_ENTRY_HEAD_BYTES + runEntryRecordBytes(run, at)
  return at < run.length ? at : undefined
}

/** The primary key and the record of the entry at `run[at]`, as views. */
export function runEntryAt(run: Buffer, at: number): { pk: Buffer; record: Buffer } {
  const recordStart = at + RUN_ENTRY_HEAD_BYTES
  return { pk: run.subarray(at, at + PK_BYTES), record: run.subarray(recordStart, recordStart + runEntryRecordBytes(run, at)) }
}

// ---------------------------------------------------------------------------------------------------
// Statistics buckets (filtered /stats and /stats/series; store/buckets.ts).
//
// Bucket key: tag (1 byte) ‖ field value (20 bytes for a recipient, 16 for an acquirer id; nothing for
// the `all` tag) ‖ hour since the epoch (4 bytes) ‖ token (20 bytes). One bucket per field value, hour
// and token, so a field value's hours are one contiguous range of keys in time order, each hour's
// tokens side by side. Built as latin1 strings (one character per byte, like `indexKeyString`) while
// a batch is encoded off the committing thread; `indexKeyFromString` turns one into its bytes.
// ---------------------------------------------------------------------------------------------------

/** The bucket families: every settlement, and per recipient and per acquirer id (store/buckets.ts says why not per payer). */
export const BUCKET_TAGS = { all: 0, recipient: 1, acquirerId: 2 } as const
export type BucketTag = keyof typeof BUCKET_TAGS

const HOUR_BYTES = 4
const BUCKET_TOKEN_BYTES = ADDRESS_BYTES

/** `value` and `token` are latin1 strings of their raw bytes (`indexKeyString`); `value` is '' for `all`. */
export function bucketKeyString(tag: BucketTag, value: string, hour: number, token: string): string {
  const h = String.fromCharCode((hour >>> 24) & 0xff, (hour >>> 16) & 0xff, (hour >>> 8) & 0xff, hour & 0xff)
  return String.fromCharCode(BUCKET_TAGS[tag]) + value + h + token
}

/** The first key of a field value's hour: `[bucketHourKey(t, v, from), bucketHourKey(t, v, to + 1))` holds hours from..to. */
export function bucketHourKey(tag: BucketTag, value: Uint8Array, hour: number): Buffer {
  const key = Buffer.alloc(1 + value.length + HOUR_BYTES)
  key[0] = BUCKET_TAGS[tag]
  key.set(value, 1)
  key.writeUInt32BE(hour, 1 + value.length)
  return key
}

/** A bucket key's hour and token (lowercase hex without 0x). */
export function decodeBucketKey(key: Buffer): { hour: number; token: string } {
  const at = key.length - BUCKET_TOKEN_BYTES - HOUR_BYTES
  return { hour: key.readUInt32BE(at), token: key.toString('hex', at + HOUR_BYTES) }
}

// ---------------------------------------------------------------------------------------------------
// Amount index (amount range filters, issue 17; store/amounts.ts). One LMDB database, `amounts`,
// two kinds of keys told apart by their first byte. `token` in them is the token's dictionary id as a
// varint (`dictionaryIdKey`, 1 byte for the first 128 tokens; since layout 7, where it was the 20-byte
// address): no id is the prefix of another, so a token's keys are one range.
//
// - Entry: 0x00 ‖ token ‖ amount ‖ primary key (10), empty value, the amount written as its length in
//   bytes (1) then its big-endian bytes without leading zeros (zero: length 0), which sorts like the number
//   and takes 5 bytes for amounts below 2^32 where a fixed 32 would take 32. A token's settlements in
//   amount order: the settlements of an amount range are one range of keys.
// - Class entry: 0x04 ‖ token ‖ class (4, the level-2 bucket: bit length and 6 bits) ‖ primary
//   key (10), empty value: a token's settlements of one amount class in chain order. A narrow range
//   covers a few classes, whose merge gives its page in chain order after a few dozen candidates
//   (store/amounts.ts `amountClassWalk`), where walking the token's index would read 21 / selectivity.
// - Count: level (0x01..0x03) ‖ token ‖ bucket >> shift (4, big-endian), value a count (6 bytes).
//   A leaf bucket (level 3) is the amount's bit length (0..256) and the 12 bits after its leading one:
//   4,096 buckets per power of two, each under 1/4,096 of its amounts apart. Levels 2 and 1 group 64
//   buckets, then 64 of those (one power of two). The settlements of an amount range are whole leaves,
//   counted from at most ~126 counts per level, plus the two partial leaves at its ends, counted as a
//   key range of entries (LMDB counts them without reading them into JS). So a total costs about the
//   same at 1 % and at 99 % selectivity, and stays exact.
// ---------------------------------------------------------------------------------------------------

export const AMOUNT_ENTRY_TAG = 0x00
export const AMOUNT_MANTISSA_BITS = 12
/** Bucket shift per count level: 1 groups whole powers of two, 3 is the leaf. */
export const AMOUNT_LEVEL_SHIFTS = { 1: 12, 2: 6, 3: 0 } as const
export type AmountLevel = keyof typeof AMOUNT_LEVEL_SHIFTS
const COUNT_BYTES = 6

/** Writes `n` as a varint (7 bits a byte, low first, the last byte's top bit clear: prefix-free) and returns its end. */
export function writeVarint(out: Uint8Array, p: number, n: number): number {
  while (n >= 0x80) {
    out[p++] = (n & 0x7f) | 0x80
    n = Math.floor(n / 0x80)
  }
  out[p++] = n
  return p
}

/** A dictionary id as the prefix-free varint that stands for its value in keys. */
export function dictionaryIdKey(id: number): Buffer {
  const key = Buffer.allocUnsafe(5)
  return key.subarray(0, writeVarint(key, 0, id))
}

/** Length (1) ‖ big-endian bytes without leading zeros: compares bytewise as the amounts do. */
function amountBytes(amount: bigint): Buffer {
  if (amount === 0n) return Buffer.alloc(1)
  let hex = amount.toString(16)
  if (hex.length % 2 === 1) hex = `0${hex}`
  const out = Buffer.allocUnsafe(1 + hex.length / 2)
  out[0] = hex.length / 2
  out.write(hex, 1, 'hex')
  return out
}

function amountKey(token: Uint8Array, amount: bigint, tail: number, fill: number): Buffer {
  const written = amountBytes(amount)
  const key = Buffer.alloc(1 + token.length + written.length + tail, fill)
  key[0] = AMOUNT_ENTRY_TAG
  key.set(token, 1)
  written.copy(key, 1 + token.length)
  return key
}

/** Bytes `writeAmountEntryKey` and `writeAmountClassKey` take at most for one settlement (amounts below 2^256, ids below 2^35). */
export const MAX_AMOUNT_KEYS_BYTES = 2 * (1 + 5 + PK_BYTES) + 1 + 32 + 4

/** `encodeAmountEntryKey`'s bytes written at `out[at]`, for a batch's keys built in one buffer; returns the end. */
export function writeAmountEntryKey(out: Buffer, at: number, token: Uint8Array, amount: bigint, pk: Uint8Array): number {
  out[at] = AMOUNT_ENTRY_TAG
  out.set(token, at + 1)
  let p = at + 1 + token.length
  if (amount < 0x1_0000_0000n) {
    // The common case without a string: 0 to 4 bytes big-endian, leading zeros dropped.
    const n = Number(amount)
    const length = n === 0 ? 0 : n < 0x100 ? 1 : n < 0x1_0000 ? 2 : n < 0x100_0000 ? 3 : 4
    out[p++] = length
    if (length > 0) out.writeUIntBE(n, p, length)
    p += length
  } else {
    const written = amountBytes(amount)
    p += written.copy(out, p)
  }
  out.set(pk, p)
  return p + PK_BYTES
}

/** `encodeAmountClassKey`'s bytes written at `out[at]`, as `writeAmountEntryKey` does; returns the end. */
export function writeAmountClassKey(out: Buffer, at: number, token: Uint8Array, amountClass: number, pk: Uint8Array): number {
  out[at] = AMOUNT_CLASS_TAG
  out.set(token, at + 1)
  out.writeUInt32BE(amountClass, at + 1 + token.length)
  out.set(pk, at + 1 + token.length + 4)
  return at + 1 + token.length + 4 + PK_BYTES
}

/** Entry key of a settlement. */
export function encodeAmountEntryKey(token: Uint8Array, amount: bigint, pk: Uint8Array): Buffer {
  const key = amountKey(token, amount, PK_BYTES, 0)
  key.set(pk, key.length - PK_BYTES)
  return key
}

/** A bound between entry keys: before every entry of `token` with this amount (or, with `after`, after them). */
export function amountEntryBound(token: Uint8Array, amount: bigint, after = false): Buffer {
  // A primary key of all 0xff bytes never exists (no block reaches 2^48 − 1): it sorts after every real one.
  return amountKey(token, amount, after ? PK_BYTES : 0, 0xff)
}

/** The primary key inside an entry or class key (a view). */
export function amountEntryPk(key: Buffer): Buffer {
  return key.subarray(key.length - PK_BYTES)
}

export const AMOUNT_CLASS_TAG = 0x04

/** Class entry key of a settlement, or with a bound's primary key a bound between them. */
export function encodeAmountClassKey(token: Uint8Array, amountClass: number, pk: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(1 + token.length + 4 + PK_BYTES)
  return key.subarray(0, writeAmountClassKey(key, 0, token, amountClass, pk))
}

/** Count key of a bucket at a level; `bucket` is the leaf bucket number shifted for that level. */
export function encodeAmountCountKey(level: AmountLevel, token: Uint8Array, bucket: number): Buffer {
  const key = Buffer.allocUnsafe(1 + token.length + 4)
  key[0] = level
  key.set(token, 1)
  key.writeUInt32BE(bucket, 1 + token.length)
  return key
}

/** A count key's bucket. */
export const amountCountBucket = (key: Buffer) => key.readUInt32BE(key.length - 4)

export function encodeAmountCount(count: number): Buffer {
  const value = Buffer.allocUnsafe(COUNT_BYTES)
  value.writeUIntBE(count, 0, COUNT_BYTES)
  return value
}

export function decodeAmountCount(value: Uint8Array): number {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).readUIntBE(0, COUNT_BYTES)
}
