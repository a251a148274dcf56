/**
 * The one place that knows how LMDB keys and index values are laid out. Everything else asks here.
 *
 * - Primary key: block number (6 bytes, big-endian) ‖ log index (4 bytes) = 10 bytes, so byte order is
 *   chain order and keyset paging is a plain range.
 * - Index value (dupsort): primary key ‖ ordinal (4 bytes) for fields whose values repeat (see
 *   `hasOrdinals`), the bare primary key for the others. The ordinal is the 1-based position of the
 *   settlement among those with the same key, so the number of matches between two positions is a
 *   difference of two ordinals: exact totals without counting at query time.
 * - Time key: timestamp (4 bytes) ‖ block (6 bytes), one entry per block that holds settlements.
 * - Hour key: hour since epoch (4 bytes) ‖ token (20 bytes), for the rolling 24-hour figures.
 */
import type { Hex } from '../../wire/index.js'

export const PK_BYTES = 10
export const ORDINAL_BYTES = 4
export const INDEX_VALUE_BYTES = PK_BYTES + ORDINAL_BYTES

export interface Position {
  blockNumber: number
  logIndex: number
}

export function encodePk(blockNumber: number, logIndex: number): Buffer {
  const key = Buffer.allocUnsafe(PK_BYTES)
  key.writeUIntBE(blockNumber, 0, 6)
  key.writeUInt32BE(logIndex, 6)
  return key
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

export function encodeIndexValue(pk: Uint8Array, ordinal: number): Buffer {
  const value = Buffer.allocUnsafe(INDEX_VALUE_BYTES)
  value.set(pk, 0)
  value.writeUInt32BE(ordinal, PK_BYTES)
  return value
}

export function indexValuePk(value: Buffer): Buffer {
  return value.subarray(0, PK_BYTES)
}

export function indexValueOrdinal(value: Buffer): number {
  return value.readUInt32BE(PK_BYTES)
}

/** Index key of a field value: the raw bytes of its hex (20 for addresses, 16 for refs, 32 for hashes). */
export function encodeHexKey(hex: Hex): Buffer {
  return Buffer.from(hex.slice(2), 'hex')
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

export function encodeBlockKey(blockNumber: number): Buffer {
  const key = Buffer.allocUnsafe(6)
  key.writeUIntBE(blockNumber, 0, 6)
  return key
}

export function decodeBlockKey(key: Buffer): number {
  return key.readUIntBE(0, 6)
}

export const HOUR_SECONDS = 3600

export function encodeHourKey(hour: number, token: Buffer): Buffer {
  const key = Buffer.allocUnsafe(24)
  key.writeUInt32BE(hour, 0)
  key.set(token, 4)
  return key
}

export function decodeHourKey(key: Buffer): { hour: number; token: Buffer } {
  return { hour: key.readUInt32BE(0), token: Buffer.from(key.subarray(4, 24)) }
}
