/**
 * Decodes a raw `PermittedTransfer` log by slicing its hex, not through a generic ABI decoder: the
 * layout is fixed (three indexed words, four data words) and this runs once per settlement.
 */
import { toEventSelector } from 'viem'
import type { SettlementRecord } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import { MalformedLogError } from './node-errors.js'

export const PERMITTED_TRANSFER =
  'event PermittedTransfer(bytes32 indexed domainSeparator, address indexed token, address indexed payer, address recipient, uint256 value, uint256 fee, bytes32 orderReference)'

export const PERMITTED_TRANSFER_TOPIC = toEventSelector(PERMITTED_TRANSFER)

/** A log as `eth_getLogs` returns it; `blockTimestamp` is present on newer nodes. */
export interface RawLog {
  address: Hex
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  blockHash: Hex
  blockTimestamp?: Hex
  transactionHash: Hex
  logIndex: Hex
  removed?: boolean
}

/** A settlement as the log gives it: everything the store needs but the block's timestamp, if absent. */
export type DecodedSettlementLog = Omit<SettlementRecord, 'timestamp'> & { blockTimestamp?: number }

const word = (data: string, i: number) => data.slice(2 + i * 64, 2 + (i + 1) * 64)
const address = (word32: string) => `0x${word32.slice(24)}` as Hex

export function decodeSettlementLog(log: RawLog): DecodedSettlementLog {
  const [topic0, domainSeparator, token, payer] = log.topics
  if (topic0?.toLowerCase() !== PERMITTED_TRANSFER_TOPIC || !domainSeparator || !token || !payer || log.data.length !== 2 + 4 * 64) {
    throw new MalformedLogError(`log ${log.transactionHash}:${log.logIndex} is not a PermittedTransfer`, { details: { blockNumber: log.blockNumber } })
  }
  const data = log.data.toLowerCase()
  return {
    blockNumber: Number(log.blockNumber),
    logIndex: Number(log.logIndex),
    blockHash: log.blockHash.toLowerCase() as Hex,
    blockTimestamp: log.blockTimestamp === undefined ? undefined : Number(log.blockTimestamp),
    txHash: log.transactionHash.toLowerCase() as Hex,
    token: address(token.slice(2).toLowerCase()),
    payer: address(payer.slice(2).toLowerCase()),
    recipient: address(word(data, 0)),
    amount: BigInt(`0x${word(data, 1)}`),
    fee: BigInt(`0x${word(data, 2)}`),
    reference: `0x${word(data, 3)}`,
    domainSeparator: domainSeparator.toLowerCase() as Hex,
  }
}
