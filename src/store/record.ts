/**
 * How one settlement is stored: a msgpack array of raw bytes and decimal strings (about 190 bytes), and
 * how it is rendered back to the JSON of SPEC §2.1 without building an intermediate object graph.
 * Block number and log index are not stored in the value: the primary key holds them.
 */
import { Packr } from 'msgpackr'
import type { Hex, Settlement } from '../types/settlement.js'
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

/** What a query needs to filter and render a stored settlement. */
export interface StoredSettlement {
  blockNumber: number
  logIndex: number
  timestamp: number
  txHash: Buffer
  token: Buffer
  payer: Buffer
  recipient: Buffer
  amount: string
  fee: string
  reference: Buffer
  domainSeparator: Buffer
  /** 1-based position among all settlements, for exact range totals. */
  ordinal: number
}

export interface TokenInfo {
  address: Hex
  symbol: string
  decimals: number
}

const packr = new Packr({ useRecords: false, moreTypes: false })

export function encodeRecord(s: StoredSettlement): Buffer {
  return packr.pack([s.timestamp, s.txHash, s.token, s.payer, s.recipient, s.amount, s.fee, s.reference, s.domainSeparator, s.ordinal])
}

type Packed = [number, Buffer, Buffer, Buffer, Buffer, string, string, Buffer, Buffer, number]

export function decodeRecord(pk: Uint8Array, value: Uint8Array): StoredSettlement {
  const { blockNumber, logIndex } = decodePk(pk)
  const [timestamp, txHash, token, payer, recipient, amount, fee, reference, domainSeparator, ordinal] =
    packr.unpack(value) as Packed
  return { blockNumber, logIndex, timestamp, txHash, token, payer, recipient, amount, fee, reference, domainSeparator, ordinal }
}

const hex = (bytes: Buffer) => `0x${bytes.toString('hex')}`

/** The JSON text of SPEC §2.1, written directly: this runs for every event of every page and message. */
export function settlementJson(s: StoredSettlement, token: TokenInfo): string {
  const ref = s.reference.toString('hex')
  return (
    `{"txHash":"${hex(s.txHash)}","blockNumber":${s.blockNumber},"logIndex":${s.logIndex},` +
    `"timestamp":${s.timestamp},"token":"${hex(s.token)}","tokenSymbol":${JSON.stringify(token.symbol)},` +
    `"tokenDecimals":${token.decimals},"payer":"${hex(s.payer)}","recipient":"${hex(s.recipient)}",` +
    `"amount":"${s.amount}","fee":"${s.fee}","orderReference":"0x${ref.slice(0, 32)}",` +
    `"acquirerId":"0x${ref.slice(32)}","domainSeparator":"${hex(s.domainSeparator)}"}`
  )
}

/** The same settlement as an object, for code paths that are not hot (tests, the SDK's peers). */
export function toSettlement(s: StoredSettlement, token: TokenInfo): Settlement {
  return JSON.parse(settlementJson(s, token)) as Settlement
}
