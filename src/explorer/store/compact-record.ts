/**
 * How a record is stored since layout 7, written at commit from the msgpack form the indexer encodes
 * (record.ts: an array with the fixed-size fields as one 156-byte run). Stored, the fields that repeat
 * across settlements are dictionary ids (dictionary.ts) and the numbers are plain bytes:
 *
 *   timestamp (4) ‖ ordinal (5) ‖ token id (varint) ‖ domain separator id (varint) ‖
 *   amount length (1) ‖ amount digits ‖ fee length (1) ‖ fee digits ‖
 *   txHash (32) ‖ payer (20) ‖ recipient (20) ‖ orderReference (16) ‖ acquirerId (16)
 *
 * about 130 bytes where the msgpack form takes about 190. Amounts stay decimal digits: they are
 * rendered as such on every read, and a binary amount would cost a conversion there. Readers take this
 * form as it is: pages render it straight to JSON (record-json.ts), filters decode it (`decodeStored`).
 */
import { findId, hexOf } from './dictionary.js'
import { decodePk, writeVarint } from './keys.js'
import type { Store } from './open-store.js'
import type { StoredSettlement } from './record.js'

const PARTIES_BYTES = 32 + 20 + 20 + 16 + 16
/** Offsets in the msgpack form's fixed run (record.ts `FIELDS`, in bytes). */
const TX_HASH = 0
const TOKEN = 32
const PAYER = 52
const DOMAIN = 124
/** The longest a stored record can be: two 78-digit amounts and 5-byte ids. */
export const MAX_COMPACT_BYTES = 4 + 5 + 5 + 5 + 2 * (1 + 78) + PARTIES_BYTES

/**
 * Writes the stored record at `out[p]` from a settlement's msgpack tail (`tail[at]`: amount, fee, the
 * 156-byte bin, as encoded-batch.ts writes it) and returns its end.
 */
export function writeCompactRecord(out: Buffer, p: number, timestamp: number, ordinal: number, tokenId: number, domainId: number, tail: Buffer, at: number): number {
  out.writeUInt32BE(timestamp, p)
  out.writeUIntBE(ordinal, p + 4, 5)
  p = writeVarint(out, p + 9, tokenId)
  p = writeVarint(out, p, domainId)
  for (let i = 0; i < 2; i++) {
    // fixstr or str8, as record.ts writes decimal strings.
    const length = tail[at] === 0xd9 ? tail[++at]! : tail[at]! & 0x1f
    out[p++] = length
    p += tail.copy(out, p, at + 1, at + 1 + length)
    at += 1 + length
  }
  const fixed = at + 2
  p += tail.copy(out, p, fixed + TX_HASH, fixed + TOKEN)
  return p + tail.copy(out, p, fixed + PAYER, fixed + DOMAIN)
}

/**
 * Where a stored record's fields are. `readLayout` fills this one object, so that reading a record's
 * fields allocates nothing; valid until the next call.
 */
export interface CompactLayout {
  timestamp: number
  ordinal: number
  tokenId: number
  domainId: number
  amountAt: number
  amountLength: number
  feeAt: number
  feeLength: number
  /** txHash (32) ‖ payer (20) ‖ recipient (20) ‖ orderReference (16) ‖ acquirerId (16). */
  partiesAt: number
}

const layout: CompactLayout = { timestamp: 0, ordinal: 0, tokenId: 0, domainId: 0, amountAt: 0, amountLength: 0, feeAt: 0, feeLength: 0, partiesAt: 0 }

/** The offsets of a stored record's fields (by hand, without a Buffer view: this runs for every record read). */
export function readLayout(r: Uint8Array): CompactLayout {
  layout.timestamp = ((r[0]! << 24) | (r[1]! << 16) | (r[2]! << 8) | r[3]!) >>> 0
  layout.ordinal = r[4]! * 2 ** 32 + (((r[5]! << 24) | (r[6]! << 16) | (r[7]! << 8) | r[8]!) >>> 0)
  at = 9
  layout.tokenId = nextVarint(r)
  layout.domainId = nextVarint(r)
  layout.amountLength = r[at]!
  layout.amountAt = at + 1
  layout.feeLength = r[layout.amountAt + layout.amountLength]!
  layout.feeAt = layout.amountAt + layout.amountLength + 1
  layout.partiesAt = layout.feeAt + layout.feeLength
  return layout
}

/** `readLayout`'s position in the record; module state so that reading a varint allocates nothing. */
let at = 0

/** The varint at `r[at]` (keys.ts `writeVarint`), moving `at` past it. */
function nextVarint(r: Uint8Array): number {
  let n = 0
  for (let scale = 1; ; scale *= 0x80) {
    const b = r[at++]!
    n += (b & 0x7f) * scale
    if (b < 0x80) return n
  }
}

/** A stored record's amount, read without decoding the rest: an amount filter checks candidates by it. */
export function storedAmount(record: Uint8Array): string {
  const { amountAt, amountLength } = readLayout(record)
  return Buffer.from(record.buffer, record.byteOffset + amountAt, amountLength).toString('latin1')
}

/** Whether a stored record is of the transaction with this 32-byte hash. */
export function storedOfTx(record: Uint8Array, txHash: Uint8Array): boolean {
  const at = readLayout(record).partiesAt
  return Buffer.compare(txHash, Buffer.from(record.buffer, record.byteOffset + at, 32)) === 0
}

/** Where each party field sits after `partiesAt`, in bytes. */
export const PARTY_FIELDS = { txHash: [0, 32], payer: [32, 52], recipient: [52, 72], orderReference: [72, 88], acquirerId: [88, 104] } as const

export type MatchedField = keyof typeof PARTY_FIELDS | 'token'

/**
 * A test of stored records against one field's value (`value`: its raw bytes), made once per walk:
 * it compares bytes in place (a token by its id), where decoding a record first costs about a
 * microsecond of hex strings. A token this store has never seen matches nothing.
 */
export function recordMatcher(store: Store, field: MatchedField, value: Uint8Array): (record: Uint8Array) => boolean {
  if (field === 'token') {
    const id = findId(store, 'token', value)
    return (record) => id !== undefined && readLayout(record).tokenId === id
  }
  const [from, to] = PARTY_FIELDS[field]
  return (record) => {
    const at = readLayout(record).partiesAt + from
    for (let i = 0; i < to - from; i++) if (record[at + i] !== value[i]) return false
    return true
  }
}

/** What a statistics sum takes from a stored record: its hour's timestamp, token (hex without 0x) and figures. */
export interface StoredFigures {
  timestamp: number
  token: string
  amount: string
  fee: string
}

/** A stored record's figures, without the hex of its other fields (`decodeStored` makes them all). */
export function storedFigures(store: Store, record: Uint8Array): StoredFigures {
  const { timestamp, tokenId, amountAt, amountLength, feeAt, feeLength } = readLayout(record)
  const bytes = Buffer.from(record.buffer, record.byteOffset, record.length)
  return { timestamp, token: hexOf(store, 'token', tokenId), amount: bytes.toString('latin1', amountAt, amountAt + amountLength), fee: bytes.toString('latin1', feeAt, feeAt + feeLength) }
}

/** A stored record as the settlement filters and the CSV writer take it (record.ts `StoredSettlement`). */
export function decodeStored(store: Store, pk: Uint8Array, record: Uint8Array): StoredSettlement {
  const { blockNumber, logIndex } = decodePk(pk)
  const { timestamp, ordinal, tokenId, domainId, amountAt, amountLength, feeAt, feeLength, partiesAt } = readLayout(record)
  const bytes = Buffer.from(record.buffer, record.byteOffset, record.length)
  const amount = bytes.toString('latin1', amountAt, amountAt + amountLength)
  const fee = bytes.toString('latin1', feeAt, feeAt + feeLength)
  // Hex in record.ts's field order: txHash ‖ token ‖ payer ‖ recipient ‖ orderReference ‖ acquirerId ‖ domainSeparator.
  const hex =
    bytes.toString('hex', partiesAt, partiesAt + 32) +
    hexOf(store, 'token', tokenId) +
    bytes.toString('hex', partiesAt + 32, partiesAt + PARTIES_BYTES) +
    hexOf(store, 'domain', domainId)
  return { blockNumber, logIndex, timestamp, amount, fee, hex, ordinal }
}
