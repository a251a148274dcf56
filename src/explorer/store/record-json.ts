/**
 * A stored settlement's JSON (SPEC §2.1, byte for byte what `settlementJson` writes) written straight
 * from its LMDB bytes into a page buffer: no msgpack decode, no hex string, no intermediate text. A
 * page of 20 is 20 of these after one index walk, and this is what a page costs when no cache holds it.
 *
 * It reads the bytes `encodeRecord` writes — a msgpack array of [timestamp, ordinal, amount, fee,
 * 156-byte bin] — in the forms msgpackr gives those values (positive integers, strings up to 255
 * bytes, bin8). Any other form (a record written by another encoder) goes through `decodeRecord`.
 */
import { decodePk } from './keys.js'
import { decodeRecord, settlementJson, type TokenInfo } from './record.js'

/** Token metadata for rendering, by address. */
export interface TokenSource {
  /** By the address as lowercase hex without 0x. */
  get(addressHex: string): TokenInfo
  /**
   * The `"tokenSymbol":…,"tokenDecimals":…` member pair as UTF-8, by the address's 20 bytes at
   * `offset`, when known without reading the store (a read may reuse the buffer `bytes` is in).
   */
  fieldsJson(bytes: Uint8Array, offset: number): Uint8Array | undefined
}

/** The member pair of `TokenSource.fieldsJson`. */
export const tokenFieldsJson = (token: TokenInfo) => Buffer.from(`"tokenSymbol":${JSON.stringify(token.symbol)},"tokenDecimals":${token.decimals}`)

const HEX = Buffer.from('0123456789abcdef')
const text = (s: string) => Buffer.from(s, 'latin1')
const TX_HASH = text('{"txHash":"0x')
const BLOCK_NUMBER = text('","blockNumber":')
const LOG_INDEX = text(',"logIndex":')
const TIMESTAMP = text(',"timestamp":')
const TOKEN = text(',"token":"0x')
const AFTER_TOKEN = text('",')
const PAYER = text(',"payer":"0x')
const RECIPIENT = text('","recipient":"0x')
const AMOUNT = text('","amount":"')
const FEE = text('","fee":"')
const ORDER_REFERENCE = text('","orderReference":"0x')
const ACQUIRER_ID = text('","acquirerId":"0x')
const DOMAIN_SEPARATOR = text('","domainSeparator":"0x')
const END = text('"}')
const FIXED_BYTES = 156

/** The template's own bytes plus the longest block number, log index and timestamp, rounded up. */
const TEMPLATE_BYTES = 256

// The msgpack reader's position; module state so that reading a field allocates nothing.
let at = 0

function readUint(v: Uint8Array): number {
  const b = v[at++]!
  if (b < 0x80) return b
  if (b === 0xcc) return v[at++]!
  if (b === 0xcd) return (v[at++]! << 8) | v[at++]!
  if (b === 0xce) return ((v[at++]! << 24) | (v[at++]! << 16) | (v[at++]! << 8) | v[at++]!) >>> 0
  return -1
}

/** A string's length, with `at` moved to its first byte; -1 for a form this reader does not take. */
function readStrLength(v: Uint8Array): number {
  const b = v[at++]!
  if (b >= 0xa0 && b <= 0xbf) return b - 0xa0
  if (b === 0xd9) return v[at++]!
  return -1
}

function put(out: Buffer, p: number, part: Uint8Array): number {
  out.set(part, p)
  return p + part.length
}

function putHex(out: Buffer, p: number, v: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const b = v[i]!
    out[p++] = HEX[b >> 4]!
    out[p++] = HEX[b & 15]!
  }
  return p
}

function putBytes(out: Buffer, p: number, v: Uint8Array, from: number, length: number): number {
  for (let i = 0; i < length; i++) out[p++] = v[from + i]!
  return p
}

/** A non-negative integer below 2^53, digit by digit: cheaper than a string and a native write. */
function putDecimal(out: Buffer, p: number, n: number): number {
  let digits = 1
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++
  const end = p + digits
  for (let i = end - 1; i >= p; i--) {
    out[i] = 48 + (n % 10)
    n = Math.floor(n / 10)
  }
  return end
}

/**
 * Writes the settlement under `pk` whose stored bytes are `value` at `out[p]` and returns where it
 * ends, or -1, having written nothing, when it does not fit in `out` (about 600 bytes).
 */
export function writeRecordJson(out: Buffer, p: number, pk: Uint8Array, value: Uint8Array, tokens: TokenSource): number {
  at = 1
  const timestamp = value[0] === 0x95 ? readUint(value) : -1
  const ordinal = timestamp < 0 ? -1 : readUint(value)
  const amountLength = ordinal < 0 ? -1 : readStrLength(value)
  const amountAt = at
  at += Math.max(0, amountLength)
  const feeLength = amountLength < 0 ? -1 : readStrLength(value)
  const feeAt = at
  at += Math.max(0, feeLength)
  const f = at + 2
  if (feeLength < 0 || value[at] !== 0xc4 || value[at + 1] !== FIXED_BYTES || f + FIXED_BYTES !== value.length) {
    const s = decodeRecord(pk, value)
    const json = settlementJson(s, tokens.get(s.hex.slice(64, 104)))
    return p + Buffer.byteLength(json) > out.length ? -1 : p + out.write(json, p, 'utf8')
  }
  let fields = tokens.fieldsJson(value, f + 32)
  if (!fields) {
    // `value` may be lmdb-js's shared read buffer, which reading the token's metadata may overwrite;
    // its `length` is the record's, its real extent the whole buffer's.
    value = Buffer.copyBytesFrom(value, 0, value.length)
    fields = tokens.fieldsJson(value, f + 32) ?? tokenFieldsJson(tokens.get(Buffer.from(value.subarray(f + 32, f + 52)).toString('hex')))
  }
  if (p + 2 * FIXED_BYTES + amountLength + feeLength + fields.length + TEMPLATE_BYTES > out.length) return -1
  const { blockNumber, logIndex } = decodePk(pk)
  p = put(out, p, TX_HASH)
  p = putHex(out, p, value, f, f + 32)
  p = put(out, p, BLOCK_NUMBER)
  p = putDecimal(out, p, blockNumber)
  p = put(out, p, LOG_INDEX)
  p = putDecimal(out, p, logIndex)
  p = put(out, p, TIMESTAMP)
  p = putDecimal(out, p, timestamp)
  p = put(out, p, TOKEN)
  p = putHex(out, p, value, f + 32, f + 52)
  p = put(out, p, AFTER_TOKEN)
  p = put(out, p, fields)
  p = put(out, p, PAYER)
  p = putHex(out, p, value, f + 52, f + 72)
  p = put(out, p, RECIPIENT)
  p = putHex(out, p, value, f + 72, f + 92)
  p = put(out, p, AMOUNT)
  p = putBytes(out, p, value, amountAt, amountLength)
  p = put(out, p, FEE)
  p = putBytes(out, p, value, feeAt, feeLength)
  p = put(out, p, ORDER_REFERENCE)
  p = putHex(out, p, value, f + 92, f + 108)
  p = put(out, p, ACQUIRER_ID)
  p = putHex(out, p, value, f + 108, f + 124)
  p = put(out, p, DOMAIN_SEPARATOR)
  p = putHex(out, p, value, f + 124, f + 156)
  return put(out, p, END)
}

/** One settlement's JSON on its own (a lookup's answer). */
export function recordJson(pk: Uint8Array, value: Uint8Array, tokens: TokenSource): Buffer {
  let out = Buffer.allocUnsafe(1024)
  let end: number
  while ((end = writeRecordJson(out, 0, pk, value, tokens)) < 0) out = Buffer.allocUnsafe(out.length * 2)
  return out.subarray(0, end)
}
