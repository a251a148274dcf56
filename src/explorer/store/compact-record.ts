/**
 * How a record is stored since layout 7, and how it is read back into the form every reader takes
 * (record.ts: a msgpack array with the fixed-size fields as one 156-byte run). Stored, the fields that
 * repeat across settlements are dictionary ids (dictionary.ts) and the numbers are plain bytes:
 *
 *   timestamp (4) ‖ ordinal (5) ‖ token id (varint) ‖ domain separator id (varint) ‖
 *   amount length (1) ‖ amount digits ‖ fee length (1) ‖ fee digits ‖
 *   txHash (32) ‖ payer (20) ‖ recipient (20) ‖ orderReference (16) ‖ acquirerId (16)
 *
 * about 130 bytes where the msgpack form takes about 190. Amounts stay decimal digits: they are
 * rendered as such on every read, and a binary amount would cost a conversion there.
 */
import { valueOf } from './dictionary.js'
import { readVarint, writeVarint } from './keys.js'
import type { Store } from './open-store.js'
import { FIXED_BYTES, RECORD_HEAD_ROOM, writeRecordHead } from './record.js'

const PARTIES_BYTES = 32 + 20 + 20 + 16 + 16
/** Offsets in the expanded fixed run (record.ts `FIELDS`, in bytes). */
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

let expanded = Buffer.allocUnsafeSlow(512)
let held = Buffer.allocUnsafeSlow(512)

/**
 * The record in the form readers take (record.ts), in this thread's one buffer: valid until the next
 * record is expanded. `record` may be lmdb-js's shared read buffer: it is copied before the dictionary
 * is read, which may overwrite that buffer.
 */
export function expandRecord(store: Store, record: Uint8Array): Buffer {
  if (record.length > held.length) held = Buffer.allocUnsafeSlow(2 * record.length)
  held.set(record)
  const r = held
  const timestamp = r.readUInt32BE(0)
  const ordinal = r.readUIntBE(4, 5)
  const [tokenId, afterToken] = readVarint(r, 9)
  const [domainId, afterDomain] = readVarint(r, afterToken)
  const token = valueOf(store, 'token', tokenId)
  const domain = valueOf(store, 'domain', domainId)
  const amountLength = r[afterDomain]!
  const feeAt = afterDomain + 1 + amountLength
  const feeLength = r[feeAt]!
  const partiesAt = feeAt + 1 + feeLength
  const size = RECORD_HEAD_ROOM + 2 * 2 + amountLength + feeLength + 2 + FIXED_BYTES
  if (size > expanded.length) expanded = Buffer.allocUnsafeSlow(2 * size)
  const out = expanded
  // The head goes in last, backwards from the tail (record.ts `writeRecordHead`).
  let p = RECORD_HEAD_ROOM
  p = writeStrFrom(out, p, r, afterDomain + 1, amountLength)
  p = writeStrFrom(out, p, r, feeAt + 1, feeLength)
  out[p++] = 0xc4
  out[p++] = FIXED_BYTES
  p += r.copy(out, p, partiesAt, partiesAt + 32)
  p += token.copy(out, p)
  p += r.copy(out, p, partiesAt + 32, partiesAt + PARTIES_BYTES)
  p += domain.copy(out, p)
  return out.subarray(writeRecordHead(out, RECORD_HEAD_ROOM, timestamp, ordinal), p)
}

function writeStrFrom(out: Buffer, p: number, from: Buffer, at: number, length: number): number {
  if (length < 0x20) out[p++] = 0xa0 | length
  else {
    out[p++] = 0xd9
    out[p++] = length
  }
  return p + from.copy(out, p, at, at + length)
}
