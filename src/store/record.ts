/**
 * How one settlement is stored: a msgpack array of its numbers, decimal amounts and one 156-byte run of
 * its fixed-size fields (about 190 bytes), and how it is rendered back to the JSON of SPEC §2.1 without
 * building an intermediate object graph.
 * Block number and log index are not stored in the value: the primary key holds them.
 */
import { Packr } from 'msgpackr'
import type { Hex } from '../types/settlement.js'
import { decodePk } from './keys.js'

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
const FIXED_BYTES = 156

/** A field's value: lowercase hex without 0x. */
export function fieldHex(s: StoredSettlement, field: HexField): string {
  const [start, end] = FIELDS[field]
  return s.hex.slice(start, end)
}

export interface TokenInfo {
  address: Hex
  symbol: string
  decimals: number
}

const packr = new Packr({ useRecords: false, moreTypes: false })

export function toStored(record: SettlementRecord, ordinal: number): StoredSettlement {
  const hex = [record.txHash, record.token, record.payer, record.recipient, record.reference, record.domainSeparator].map((h) => h.slice(2)).join('')
  if (hex.length !== FIXED_BYTES * 2) throw new Error(`settlement ${record.txHash}:${record.logIndex} has a malformed field`)
  return { blockNumber: record.blockNumber, logIndex: record.logIndex, timestamp: record.timestamp, amount: record.amount.toString(), fee: record.fee.toString(), hex, ordinal }
}

/** msgpack: [timestamp, ordinal, amount, fee, the fixed fields as one 156-byte bin]. */
export function encodeRecord(s: StoredSettlement): Buffer {
  return packr.pack([s.timestamp, s.ordinal, s.amount, s.fee, Buffer.from(s.hex, 'hex')])
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
