/**
 * A settlement as the indexer encodes it: a msgpack array of its numbers, decimal amounts and one
 * 156-byte run of its fixed-size fields (about 190 bytes). Layout 6 stored this form; layout 7 stores
 * the compact record made from it at commit (compact-record.ts), and the migration reads it from a
 * layout-6 store. Also the settlement as filters take it, and its JSON (SPEC §2.1) as text.
 * Block number and log index are not in the value: the primary key holds them.
 */
import { Packr } from 'msgpackr'
import type { Hex } from '../../wire/index.js'
import { decodePk } from './keys.js'
import { StoreError } from './store-error.js'

/** A settlement as the indexer hands it to the store: lowercase hex, amounts as bigints. */
export interface SettlementRecord {
  blockNumber: number
  logIndex: number
  blockHash: Hex
  timestamp: number
  txHash: Hex
  token: Hex
  payer: Hex
  recipient: Hex
  amount: bigint
  fee: bigint
  /** The event's full 32-byte `orderReference`: order reference ‖ acquirer id. */
  reference: Hex
  domainSeparator: Hex
}

/**
 * What a query needs to filter and render a stored settlement. The fixed-size fields live in one
 * lowercase hex string (no 0x) — one hex conversion per record instead of one per field, and field
 * values are substrings, compared and rendered without further conversion.
 */
export interface StoredSettlement {
  blockNumber: number
  logIndex: number
  timestamp: number
  amount: string
  fee: string
  /** txHash ‖ token ‖ payer ‖ recipient ‖ orderReference ‖ acquirerId ‖ domainSeparator. */
  hex: string
  /** 1-based position among all settlements, for exact range totals. */
  ordinal: number
}

export type HexField = 'txHash' | 'token' | 'payer' | 'recipient' | 'orderReference' | 'acquirerId' | 'domainSeparator'

/** Where each field sits in `StoredSettlement.hex`, in hex digits. */
const FIELDS: Record<HexField, readonly [number, number]> = {
  txHash: [0, 64],
  token: [64, 104],
  payer: [104, 144],
  recipient: [144, 184],
  orderReference: [184, 216],
  acquirerId: [216, 248],
  domainSeparator: [248, 312],
}
export const FIXED_BYTES = 156

/** Where each field sits in the fixed-size run of a stored record, in bytes. */
export function fieldBytes(field: HexField): readonly [number, number] {
  const [start, end] = FIELDS[field]
  return [start / 2, end / 2]
}

/** A field's value: lowercase hex without 0x. */
export function fieldHex(s: StoredSettlement, field: HexField): string {
  const [start, end] = FIELDS[field]
  return s.hex.slice(start, end)
}

/**
 * The addresses the `address` filter matches a settlement by: the payer, and the recipient when it is
 * another address, so that a self-payment is matched and delivered once.
 */
export function addressesOf(s: StoredSettlement): string[] {
  const payer = fieldHex(s, 'payer')
  const recipient = fieldHex(s, 'recipient')
  return payer === recipient ? [payer] : [payer, recipient]
}

export interface TokenInfo {
  address: Hex
  symbol: string
  decimals: number
}

const packr = new Packr({ useRecords: false, moreTypes: false })

export function toStored(record: SettlementRecord, ordinal: number): StoredSettlement {
  const hex = [record.txHash, record.token, record.payer, record.recipient, record.reference, record.domainSeparator].map((h) => h.slice(2)).join('')
  if (hex.length !== FIXED_BYTES * 2) throw new StoreError(`settlement ${record.txHash}:${record.logIndex} has a malformed field`)
  return { blockNumber: record.blockNumber, logIndex: record.logIndex, timestamp: record.timestamp, amount: record.amount.toString(), fee: record.fee.toString(), hex, ordinal }
}

/**
 * msgpack: [timestamp, ordinal, amount, fee, the fixed fields as one 156-byte bin], in the forms msgpackr
 * writes them (record.test.ts holds the two equal). Written by hand in two parts, because the ordinal is
 * known only when the batch commits: the tail (amount, fee, fixed fields) wherever the settlement was
 * decoded, the head (array, timestamp, ordinal) by the committing thread, backwards from the tail.
 */
export function encodeRecord(s: StoredSettlement): Buffer {
  const out = Buffer.allocUnsafe(RECORD_HEAD_ROOM + recordTailBytes(s.amount, s.fee))
  const end = writeRecordTail(out, RECORD_HEAD_ROOM, s.amount, s.fee)
  out.write(s.hex, end - FIXED_BYTES, FIXED_BYTES, 'hex')
  return out.subarray(writeRecordHead(out, RECORD_HEAD_ROOM, s.timestamp, s.ordinal), end)
}

/** The most bytes a record's head takes: array marker, timestamp and ordinal as uint32. */
export const RECORD_HEAD_ROOM = 11

const uintBytes = (n: number) => (n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5)
const strBytes = (s: string) => (s.length < 0x20 ? 1 : 2) + s.length

/** The tail's size: two decimal strings (at most 78 digits each) and the 156-byte bin. */
export function recordTailBytes(amount: string, fee: string): number {
  return strBytes(amount) + strBytes(fee) + 2 + FIXED_BYTES
}

/**
 * Writes amount, fee and the bin's header at `p` and returns the record's end; the caller fills the
 * last FIXED_BYTES (the fixed-size fields) before it.
 */
export function writeRecordTail(out: Buffer, p: number, amount: string, fee: string): number {
  p = writeStr(out, p, amount)
  p = writeStr(out, p, fee)
  out[p++] = 0xc4
  out[p++] = FIXED_BYTES
  return p + FIXED_BYTES
}

/** Writes the head so that it ends at `tail` and returns where the record starts (at most RECORD_HEAD_ROOM before). */
export function writeRecordHead(out: Uint8Array, tail: number, timestamp: number, ordinal: number): number {
  const start = tail - 1 - uintBytes(timestamp) - uintBytes(ordinal)
  out[start] = 0x95
  writeUint(out, writeUint(out, start + 1, timestamp), ordinal)
  return start
}

function writeUint(out: Uint8Array, p: number, n: number): number {
  if (n < 0x80) out[p++] = n
  else if (n < 0x100) {
    out[p++] = 0xcc
    out[p++] = n
  } else if (n < 0x10000) {
    out[p++] = 0xcd
    out[p++] = n >> 8
    out[p++] = n & 0xff
  } else {
    out[p++] = 0xce
    out[p++] = n >>> 24
    out[p++] = (n >> 16) & 0xff
    out[p++] = (n >> 8) & 0xff
    out[p++] = n & 0xff
  }
  return p
}

/** An ASCII string (decimal digits) as fixstr or str8. */
function writeStr(out: Buffer, p: number, s: string): number {
  if (s.length < 0x20) out[p++] = 0xa0 | s.length
  else {
    out[p++] = 0xd9
    out[p++] = s.length
  }
  return p + out.write(s, p, 'latin1')
}

type Packed = [number, number, string, string, Uint8Array]

/** `value` may be lmdb-js's reused buffer (getBinaryFast): everything is copied out before returning. */
export function decodeRecord(pk: Uint8Array, value: Uint8Array): StoredSettlement {
  const { blockNumber, logIndex } = decodePk(pk)
  const [timestamp, ordinal, amount, fee, fixed] = packr.unpack(value) as Packed
  const hex = Buffer.from(fixed.buffer, fixed.byteOffset, fixed.byteLength).toString('hex')
  return { blockNumber, logIndex, timestamp, amount, fee, hex, ordinal }
}

/** The JSON text of SPEC §2.1, written directly: this runs for every event of every page and message. */
export function settlementJson(s: StoredSettlement, token: TokenInfo): string {
  const h = s.hex
  return (
    `{"txHash":"0x${h.slice(0, 64)}","blockNumber":${s.blockNumber},"logIndex":${s.logIndex},` +
    `"timestamp":${s.timestamp},"token":"0x${h.slice(64, 104)}","tokenSymbol":${JSON.stringify(token.symbol)},` +
    `"tokenDecimals":${token.decimals},"payer":"0x${h.slice(104, 144)}","recipient":"0x${h.slice(144, 184)}",` +
    `"amount":"${s.amount}","fee":"${s.fee}","orderReference":"0x${h.slice(184, 216)}",` +
    `"acquirerId":"0x${h.slice(216, 248)}","domainSeparator":"0x${h.slice(248, 312)}"}`
  )
}
