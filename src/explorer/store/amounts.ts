/**
 * The amount index (key layout in keys.ts, "Amount index"): per token, settlements in amount order,
 * plus counts per amount bucket at three levels, written in the indexing transaction and taken back by
 * a rollback in its own. It answers "how many settlements of this token have an amount in [min, max]"
 * exactly in a bounded number of reads whatever the range's selectivity, and lists them when few.
 *
 * Why this layout (bench/RESULTS.md, "Amount ranges"): a page in chain order is found by walking the
 * token's own index and checking each amount, about (limit + 1) / selectivity candidates; what must
 * not cost a walk is the exact `total`. Counting entries in amount order would cost the matches
 * (half the token at 50 %); bucket counts alone would be approximate at the range's ends. Whole leaf
 * buckets are summed from the counts (a three-level radix tree of 64 children, so at most ~126 counts
 * read per level), and the two partial leaves at the ends — under 1/4,096 of a power of two each —
 * are counted as key ranges of entries inside LMDB.
 */
import type { Database } from 'lmdb'
import {
  AMOUNT_LEVEL_SHIFTS,
  AMOUNT_MANTISSA_BITS,
  amountCountBucket,
  amountEntryBound,
  amountEntryPk,
  decodeAmountCount,
  dictionaryIdKey,
  encodeAmountCount,
  encodeAmountCountKey,
  encodeAmountClassKey,
  encodeAmountEntryKey,
  encodeBareHexKey,
  encodePk,
  MAX_AMOUNT_KEYS_BYTES,
  writeAmountClassKey,
  writeAmountEntryKey,
  type AmountLevel,
} from './keys.js'
import type { Store } from './open-store.js'
import { fieldHex, type StoredSettlement } from './record.js'
import { findId, idOf } from './dictionary.js'

const LEVELS = [1, 2, 3] as const satisfies readonly AmountLevel[]
/** Above every leaf bucket (257 bit lengths × 4,096): level × LEVEL_ID + bucket numbers a count key in a small integer. */
const LEVEL_ID = 2 ** 21
const RADIX = 64
const MANTISSA = 1n << BigInt(AMOUNT_MANTISSA_BITS)
export const MAX_AMOUNT = (1n << 256n) - 1n
const EMPTY = Buffer.alloc(0)

const databases = new WeakMap<Store, Database<Buffer, Buffer>>()

/** The `amounts` database of a store (opened once per thread, like the others, on first use). */
export function amountsDb(store: Store): Database<Buffer, Buffer> {
  let db = databases.get(store)
  if (!db) databases.set(store, (db = store.env.openDB<Buffer, Buffer>('amounts', { keyEncoding: 'binary', encoding: 'binary' })))
  return db
}

/** The leaf bucket of an amount: bit length × 4,096 + the 12 bits after the leading one. Grows with the amount. */
export function amountBucket(amount: bigint): number {
  if (amount === 0n) return 0
  // Amounts below 2^32 (4,294 units of a 6-decimal token) are the common case: plain 32-bit arithmetic.
  if (amount < 0x1_0000_0000n) {
    const n = Number(amount)
    const length = 32 - Math.clz32(n)
    const e = length - 1
    const mantissa = e >= AMOUNT_MANTISSA_BITS ? (n >>> (e - AMOUNT_MANTISSA_BITS)) - 4096 : (n - 2 ** e) * 2 ** (AMOUNT_MANTISSA_BITS - e)
    return length * 4096 + mantissa
  }
  const hex = amount.toString(16)
  const length = (hex.length - 1) * 4 + 32 - Math.clz32(Number.parseInt(hex[0]!, 16))
  const e = BigInt(length - 1)
  const bits = BigInt(AMOUNT_MANTISSA_BITS)
  const mantissa = e >= bits ? (amount >> (e - bits)) - MANTISSA : (amount - (1n << e)) << (bits - e)
  return length * Number(MANTISSA) + Number(mantissa)
}

/** The smallest amount whose bucket is `bucket` or above (may be 2^256: past every amount). */
export function bucketStart(bucket: number): bigint {
  const length = Math.floor(bucket / Number(MANTISSA))
  if (length === 0) return bucket === 0 ? 0n : 1n
  const e = BigInt(length - 1)
  const bits = BigInt(AMOUNT_MANTISSA_BITS)
  const mantissa = BigInt(bucket % Number(MANTISSA))
  if (e >= bits) return (1n << e) + (mantissa << (e - bits))
  const step = 1n << (bits - e)
  const start = (1n << e) + (mantissa + step - 1n) / step
  return start < 1n << (e + 1n) ? start : 1n << (e + 1n)
}

/**
 * A batch's amount-index count changes, built where the batch is encoded (an indexing worker), by
 * `countId`; plain data, so that it crosses threads. The commit puts each settlement's entry and
 * class keys (`putAmountEntries`, which need the token's id) and applies the counts (`writeAmountCounts`).
 */
export interface AmountChange {
  counts: Map<string, number>
}

/** A count's key while it crosses threads: level ‖ the token's 20 bytes ‖ bucket, as latin1 characters. */
function countId(level: AmountLevel, tokenLatin1: string, bucket: number): string {
  return String.fromCharCode(level) + tokenLatin1 + String.fromCharCode((bucket >>> 24) & 0xff, (bucket >>> 16) & 0xff, (bucket >>> 8) & 0xff, bucket & 0xff)
}

/** Settlement `i` has amount `amounts[i]` and its token's 20 bytes as a latin1 string (`indexKeyString`) `tokenLatin1(i)`. */
export function amountChange(amounts: readonly bigint[], tokenLatin1: (i: number) => string): AmountChange {
  // Per token, counts by level and shifted bucket as one small integer: a count id is made once per
  // bucket touched rather than three times per settlement.
  const perToken = new Map<string, Map<number, number>>()
  for (let i = 0; i < amounts.length; i++) {
    const bucket = amountBucket(amounts[i]!)
    let buckets = perToken.get(tokenLatin1(i))
    if (!buckets) perToken.set(tokenLatin1(i), (buckets = new Map()))
    for (const level of LEVELS) {
      const id = level * LEVEL_ID + (bucket >>> AMOUNT_LEVEL_SHIFTS[level])
      buckets.set(id, (buckets.get(id) ?? 0) + 1)
    }
  }
  const counts = new Map<string, number>()
  for (const [token, buckets] of perToken) {
    for (const [id, delta] of buckets) counts.set(countId(Math.floor(id / LEVEL_ID) as AmountLevel, token, id % LEVEL_ID), delta)
  }
  return { counts }
}

const entryKeys = Buffer.allocUnsafe(MAX_AMOUNT_KEYS_BYTES)

/** Puts one settlement's entry and class keys; `token` is its token's id key (`dictionaryIdKey`). Inside the caller's write transaction. */
export function putAmountEntries(store: Store, token: Uint8Array, amount: bigint, pk: Uint8Array): void {
  const db = amountsDb(store)
  const entryEnd = writeAmountEntryKey(entryKeys, 0, token, amount, pk)
  db.putSync(entryKeys.subarray(0, entryEnd), EMPTY)
  const classEnd = writeAmountClassKey(entryKeys, entryEnd, token, amountBucket(amount) >>> CLASS_SHIFT, pk)
  db.putSync(entryKeys.subarray(entryEnd, classEnd), EMPTY)
}

/** Applies the batches' counts, each count key once; inside the caller's write transaction, after the batches' tokens have ids. */
export function writeAmountCounts(store: Store, changes: readonly AmountChange[]): void {
  const counts = new Map<string, number>()
  const tokenKeys = new Map<string, Buffer>()
  for (const { counts: batchCounts } of changes) {
    for (const [id, delta] of batchCounts) {
      const token = id.slice(1, 21)
      let tokenKey = tokenKeys.get(token)
      if (!tokenKey) tokenKeys.set(token, (tokenKey = dictionaryIdKey(idOf(store, 'token', token))))
      const bucket = Buffer.from(id.slice(21), 'latin1').readUInt32BE(0)
      const key = encodeAmountCountKey(id.charCodeAt(0) as AmountLevel, tokenKey, bucket).toString('latin1')
      counts.set(key, (counts.get(key) ?? 0) + delta)
    }
  }
  writeCounts(amountsDb(store), counts)
}

/** The id key of a token (its 20 bytes) in this store, or undefined when it has no settlements. */
function tokenKeyOf(store: Store, token: Uint8Array): Buffer | undefined {
  const id = findId(store, 'token', token)
  return id === undefined ? undefined : dictionaryIdKey(id)
}

/**
 * Adds (`sign` 1) or takes back (−1) the entries and counts of settlements; inside the caller's write
 * transaction. Counts change once per bucket touched, however many settlements share it.
 */
export function writeAmounts(store: Store, settlements: readonly StoredSettlement[], sign: 1 | -1): void {
  const db = amountsDb(store)
  // Count keys as latin1 strings (one character per byte), made without a Buffer per settlement and level.
  const deltas = new Map<string, number>()
  const tokens = new Map<string, Buffer>()
  for (const s of settlements) {
    const hex = fieldHex(s, 'token')
    let token = tokens.get(hex)
    if (!token) tokens.set(hex, (token = dictionaryIdKey(idOf(store, 'token', encodeBareHexKey(hex).toString('latin1')))))
    const amount = BigInt(s.amount)
    const pk = encodePk(s.blockNumber, s.logIndex)
    const bucket = amountBucket(amount)
    if (sign > 0) putAmountEntries(store, token, amount, pk)
    else {
      db.removeSync(encodeAmountEntryKey(token, amount, pk))
      db.removeSync(encodeAmountClassKey(token, bucket >>> CLASS_SHIFT, pk))
    }
    for (const level of LEVELS) {
      const key = encodeAmountCountKey(level, token, bucket >>> AMOUNT_LEVEL_SHIFTS[level]).toString('latin1')
      deltas.set(key, (deltas.get(key) ?? 0) + sign)
    }
  }
  writeCounts(db, deltas)
}

function writeCounts(db: Database<Buffer, Buffer>, deltas: Map<string, number>): void {
  for (const [keyString, delta] of deltas) {
    if (delta === 0) continue
    const key = Buffer.from(keyString, 'latin1')
    const before = db.getBinaryFast(key)
    const count = (before ? decodeAmountCount(before) : 0) + delta
    if (count > 0) db.putSync(key, encodeAmountCount(count))
    else db.removeSync(key)
  }
}

/** Settlements of one token (its address's 20 bytes) with `min <= amount <= max`: exact, in a bounded number of reads. */
export function countAmountRange(store: Store, address: Uint8Array, min: bigint, max: bigint): number {
  const token = tokenKeyOf(store, address)
  if (!token) return 0
  const db = amountsDb(store)
  const low = amountBucket(min)
  const high = amountBucket(max)
  const entries = (from: bigint, to: bigint) => db.getCount({ start: amountEntryBound(token, from), end: amountEntryBound(token, to, true) })
  if (low === high) return entries(min, max)
  return entries(min, bucketStart(low + 1) - 1n) + entries(bucketStart(high), max) + sumBuckets(db, token, low + 1, high - 1, 3)
}

/** The counts of leaf buckets `from..to` (inclusive), shifted to `level`, summed from as few keys as the levels allow. */
function sumBuckets(db: Database<Buffer, Buffer>, token: Uint8Array, from: number, to: number, level: AmountLevel): number {
  if (from > to) return 0
  const read = (a: number, b: number) => {
    let sum = 0
    for (const { value } of db.getRange({ start: encodeAmountCountKey(level, token, a), end: encodeAmountCountKey(level, token, b + 1) })) sum += decodeAmountCount(value)
    return sum
  }
  if (level === 1) return read(from, to)
  const up = Math.ceil(from / RADIX)
  const down = Math.floor((to + 1) / RADIX)
  if (up >= down) return read(from, to)
  return read(from, up * RADIX - 1) + read(down * RADIX, to) + sumBuckets(db, token, up, down - 1, (level - 1) as AmountLevel)
}

/** Primary keys of one token's settlements with `min <= amount <= max`, in amount order (not chain order). */
export function* amountRangePks(store: Store, address: Uint8Array, min: bigint, max: bigint): Generator<Buffer> {
  const token = tokenKeyOf(store, address)
  if (!token) return
  for (const key of amountsDb(store).getKeys({ start: amountEntryBound(token, min), end: amountEntryBound(token, max, true) })) yield amountEntryPk(key)
}

/** Amount classes are level-2 buckets: 64 per power of two. */
const CLASS_SHIFT = AMOUNT_LEVEL_SHIFTS[2]

export interface AmountClass {
  amountClass: number
  /** Settlements in it (all of the token's, block bounds aside). */
  count: number
  /** Whether every amount of the class lies inside the range (no candidate of it needs its amount checked). */
  inside: boolean
}

/** The populated classes an amount range touches, at most `limit` of them (more: `undefined`). */
export function amountClasses(store: Store, address: Uint8Array, min: bigint, max: bigint, limit: number): AmountClass[] | undefined {
  const token = tokenKeyOf(store, address)
  if (!token) return []
  const low = amountBucket(min) >>> CLASS_SHIFT
  const high = amountBucket(max) >>> CLASS_SHIFT
  const found: AmountClass[] = []
  const range = { start: encodeAmountCountKey(2, token, low), end: encodeAmountCountKey(2, token, high + 1), limit: limit + 1 }
  for (const { key, value } of amountsDb(store).getRange(range)) {
    const amountClass = amountCountBucket(key)
    const first = bucketStart(amountClass << CLASS_SHIFT)
    const last = bucketStart((amountClass + 1) << CLASS_SHIFT) - 1n
    found.push({ amountClass, count: decodeAmountCount(value), inside: first >= min && last <= max })
  }
  return found.length > limit ? undefined : found
}

/** Primary keys of one class's settlements inside [low, high) of primary keys, in chain order. */
export function* amountClassWalk(store: Store, address: Uint8Array, amountClass: number, low: Buffer, high: Buffer, order: 'asc' | 'desc'): Generator<Buffer> {
  const token = tokenKeyOf(store, address)
  if (!token) return
  const db = amountsDb(store)
  const from = encodeAmountClassKey(token, amountClass, low)
  const to = encodeAmountClassKey(token, amountClass, high)
  // Copied out: a walk is merged with others, so its key outlives the next read.
  if (order === 'asc') {
    for (const key of db.getKeys({ start: from, end: to })) yield Buffer.from(amountEntryPk(key))
    return
  }
  // Reverse ranges start inclusive and `high` is exclusive: a key equal to it is skipped.
  for (const key of db.getKeys({ start: to, reverse: true })) {
    if (Buffer.compare(key, from) < 0) return
    if (!key.equals(to)) yield Buffer.from(amountEntryPk(key))
  }
}

