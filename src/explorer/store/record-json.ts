/**
 * A stored settlement's JSON (SPEC §2.1, byte for byte what `settlementJson` writes) written straight
 * from its stored record (compact-record.ts) into a page buffer: no decode, no hex string, no
 * intermediate text. A page of 20 is 20 of these after one index walk, and this is what a page costs
 * when no cache holds it. What an id stands for — a token with its symbol and decimals, a domain
 * separator — is rendered once per store and copied after that.
 */
import { PARTY_FIELDS, readLayout } from './compact-record.js'
import { valueOf } from './dictionary.js'
import { decodePk } from './keys.js'
import type { Store } from './open-store.js'
import type { TokenInfo } from './record.js'

/** Token metadata for rendering, by address. */
export interface TokenSource {
  /** By the address as lowercase hex without 0x. */
  get(addressHex: string): TokenInfo
  /**
   * The `"tokenSymbol":…,"tokenDecimals":…` member pair as UTF-8, by the address's 20 bytes at
   * `offset`, when known without reading the store.
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
const RECIPIENT = text('","recipient":"0x')
const AMOUNT = text('","amount":"')
const FEE = text('","fee":"')
const ORDER_REFERENCE = text('","orderReference":"0x')
const ACQUIRER_ID = text('","acquirerId":"0x')

// Where each party field sits after the record's `partiesAt` (compact-record.ts), as plain numbers for the hot path.
const [TX_HASH_FROM, TX_HASH_TO] = PARTY_FIELDS.txHash
const [PAYER_FROM, PAYER_TO] = PARTY_FIELDS.payer
const [RECIPIENT_FROM, RECIPIENT_TO] = PARTY_FIELDS.recipient
const [ORDER_REFERENCE_FROM, ORDER_REFERENCE_TO] = PARTY_FIELDS.orderReference
const [ACQUIRER_ID_FROM, ACQUIRER_ID_TO] = PARTY_FIELDS.acquirerId

/** The template's own bytes, the parties' hex and the longest block number, log index and timestamp, rounded up. */
const FIXED_JSON_BYTES = 384

/** What each id of a store renders to, made when first met. */
interface Chunks {
  /** `,"token":"0x…","tokenSymbol":…,"tokenDecimals":…,"payer":"0x` by token id, for tokens whose metadata is known. */
  tokens: (Buffer | undefined)[]
  /** `","domainSeparator":"0x…"}` by domain separator id. */
  domains: (Buffer | undefined)[]
}

const chunksByStore = new WeakMap<Store, Chunks>()

function chunksOf(store: Store): Chunks {
  let chunks = chunksByStore.get(store)
  if (!chunks) chunksByStore.set(store, (chunks = { tokens: [], domains: [] }))
  return chunks
}

function tokenChunk(store: Store, tokens: TokenSource, id: number): Buffer {
  const chunks = chunksOf(store)
  const known = chunks.tokens[id]
  if (known) return known
  const address = valueOf(store, 'token', id)
  const fields = tokens.fieldsJson(address, 0)
  // A token first met after this thread loaded its metadata: `get` reads it again (or renders it unknown, uncached).
  const chunk = Buffer.concat([text(`,"token":"0x${address.toString('hex')}",`), fields ?? tokenFieldsJson(tokens.get(address.toString('hex'))), text(',"payer":"0x')])
  if (fields ?? tokens.fieldsJson(address, 0)) chunks.tokens[id] = chunk
  return chunk
}

function domainChunk(store: Store, id: number): Buffer {
  const chunks = chunksOf(store)
  return (chunks.domains[id] ??= text(`","domainSeparator":"0x${valueOf(store, 'domain', id).toString('hex')}"}`))
}

function put(out: Buffer, p: number, part: Uint8Array): number {
  out.set(part, p)
  return p + part.length
}

function putRange(out: Buffer, p: number, v: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) out[p++] = v[i]!
  return p
}

function putHex(out: Buffer, p: number, v: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const b = v[i]!
    out[p++] = HEX[b >> 4]!
    out[p++] = HEX[b & 15]!
  }
  return p
}

/**
 * A non-negative integer below 2^53, digit by digit: cheaper than a string and a native write. Below
 * 2^32 (log indexes, timestamps, most block numbers) the digits come from 32-bit integer division.
 */
function putDecimal(out: Buffer, p: number, n: number): number {
  if (n >= 2 ** 32) {
    const high = Math.floor(n / 1e9)
    p = putDecimal(out, p, high)
    return putNineDigits(out, p, n - high * 1e9)
  }
  let digits = 1
  for (let rest = n; rest >= 10; rest = (rest / 10) >>> 0) digits++
  const end = p + digits
  for (let i = end - 1; i >= p; i--) {
    const q = (n / 10) >>> 0
    out[i] = 48 + n - q * 10
    n = q
  }
  return end
}

/** The low part of a large number: exactly nine digits, leading zeros kept. */
function putNineDigits(out: Buffer, p: number, n: number): number {
  for (let i = p + 8; i >= p; i--) {
    const q = (n / 10) >>> 0
    out[i] = 48 + n - q * 10
    n = q
  }
  return p + 9
}

/**
 * Writes the settlement under `pk` whose stored record is `record` at `out[p]` and returns where it
 * ends, or -1, having written nothing, when it does not fit in `out` (about 600 bytes).
 */
export function writeRecordJson(out: Buffer, p: number, pk: Uint8Array, record: Uint8Array, tokens: TokenSource, store: Store): number {
  const { timestamp, tokenId, domainId, amountAt, amountLength, feeAt, feeLength, partiesAt: at } = readLayout(record)
  const token = tokenChunk(store, tokens, tokenId)
  const domain = domainChunk(store, domainId)
  if (p + FIXED_JSON_BYTES + token.length + domain.length + amountLength + feeLength > out.length) return -1
  const { blockNumber, logIndex } = decodePk(pk)
  p = put(out, p, TX_HASH)
  p = putHex(out, p, record, at + TX_HASH_FROM, at + TX_HASH_TO)
  p = put(out, p, BLOCK_NUMBER)
  p = putDecimal(out, p, blockNumber)
  p = put(out, p, LOG_INDEX)
  p = putDecimal(out, p, logIndex)
  p = put(out, p, TIMESTAMP)
  p = putDecimal(out, p, timestamp)
  p = put(out, p, token)
  p = putHex(out, p, record, at + PAYER_FROM, at + PAYER_TO)
  p = put(out, p, RECIPIENT)
  p = putHex(out, p, record, at + RECIPIENT_FROM, at + RECIPIENT_TO)
  p = put(out, p, AMOUNT)
  p = putRange(out, p, record, amountAt, amountAt + amountLength)
  p = put(out, p, FEE)
  p = putRange(out, p, record, feeAt, feeAt + feeLength)
  p = put(out, p, ORDER_REFERENCE)
  p = putHex(out, p, record, at + ORDER_REFERENCE_FROM, at + ORDER_REFERENCE_TO)
  p = put(out, p, ACQUIRER_ID)
  p = putHex(out, p, record, at + ACQUIRER_ID_FROM, at + ACQUIRER_ID_TO)
  return put(out, p, domain)
}

/** One settlement's JSON on its own (a lookup's answer). */
export function recordJson(pk: Uint8Array, record: Uint8Array, tokens: TokenSource, store: Store): Buffer {
  let out = Buffer.allocUnsafe(1024)
  let end: number
  while ((end = writeRecordJson(out, 0, pk, record, tokens, store)) < 0) out = Buffer.allocUnsafe(out.length * 2)
  return out.subarray(0, end)
}
