/**
 * One backfill range, from the node to bytes ready to commit: its settlement logs, the header of its
 * last block (the position it commits), the timestamps of the blocks that hold settlements, decoded
 * and encoded for the store. Pure work on a chain source, so that it runs in an indexing worker
 * (range-worker.ts) or, without one, on the indexer's thread.
 */
import { encodeBatch, encodeSettlements, type EncodedBatch } from '../store/index.js'
import type { IndexedHead } from '../store/index.js'
import type { SettlementRecord } from '../store/index.js'
import type { BlockHeader, ChainSource } from './chain-source.js'
import { decodeSettlementLog, type DecodedSettlementLog } from './decode-settlement-log.js'
import { ScannedLogs } from './scan-logs.js'
import type { Hex } from '../../wire/index.js'
import { NodeReadError } from './node-errors.js'

export async function fetchRange(source: ChainSource, from: number, to: number): Promise<EncodedBatch> {
  if (source.settlementLogsBody) return fetchScannedRange(source, source.settlementLogsBody(from, to), from, to)
  const [logs, tip] = await Promise.all([source.settlementLogs(from, to), source.header(to)])
  if (!tip) throw new NodeReadError(`block ${to} is missing from the node`, { details: { block: to }, retryable: true })
  const decoded = logs.filter((log) => !log.removed).map(decodeSettlementLog)
  return toBatch(decoded, await eventHeaders(source, decoded), { blockNumber: to, blockHash: tip.blockHash })
}

/** The same from the response's bytes (scan-logs.ts): no log becomes an object. */
async function fetchScannedRange(source: ChainSource, body: Promise<Buffer>, from: number, to: number): Promise<EncodedBatch> {
  const [bytes, tip] = await Promise.all([body, source.header(to)])
  if (!tip) throw new NodeReadError(`block ${to} is missing from the node`, { details: { block: to }, retryable: true })
  const logs = new ScannedLogs(bytes)
  const unstamped = new Set<number>()
  for (let i = 0; i < logs.count; i++) if (logs.stampedTimestamp(i) === undefined) unstamped.add(logs.blockNumber(i))
  const headers = new Map<number, BlockHeader>()
  await readHeaders(source, unstamped, headers)
  const settlements = logs.withTimestamps(new Map([...headers.values()].map((h) => [h.blockNumber, h.timestamp])))
  const blocks = new Map<number, { blockNumber: number; blockHash: Hex; timestamp: number }>()
  for (let i = 0; i < logs.count; i++) {
    const blockNumber = logs.blockNumber(i)
    if (!blocks.has(blockNumber)) blocks.set(blockNumber, headers.get(blockNumber) ?? { blockNumber, blockHash: logs.blockHash(i) as Hex, timestamp: settlements.timestamp(i) })
  }
  return encodeSettlements(settlements, [...blocks.values()], { blockNumber: to, blockHash: tip.blockHash })
}

/** Decoded logs in chain order, with the headers of their blocks, as a batch for the store. */
export function toBatch(decoded: DecodedSettlementLog[], headers: Map<number, BlockHeader>, head: IndexedHead): EncodedBatch {
  const records: SettlementRecord[] = decoded.map((log) => ({ ...log, timestamp: headers.get(log.blockNumber)!.timestamp }))
  const blocks = [...new Set(decoded.map((log) => log.blockNumber))].map((b) => headers.get(b)!)
  return encodeBatch(records, blocks, head)
}

/** Headers of the blocks that hold settlements: from the logs when the node stamps them, else read. */
async function eventHeaders(source: ChainSource, decoded: DecodedSettlementLog[]): Promise<Map<number, BlockHeader>> {
  const headers = new Map<number, BlockHeader>()
  const missing = new Set<number>()
  for (const log of decoded) {
    if (log.blockTimestamp !== undefined) {
      headers.set(log.blockNumber, { blockNumber: log.blockNumber, blockHash: log.blockHash, parentHash: '0x', timestamp: log.blockTimestamp })
    } else missing.add(log.blockNumber)
  }
  await readHeaders(source, missing, headers)
  return headers
}

/** Reads the headers of blocks whose logs carry no timestamp into `headers`, 16 at a time. */
async function readHeaders(source: ChainSource, blockNumbers: Set<number>, headers: Map<number, BlockHeader>): Promise<void> {
  for (const header of await mapLimit([...blockNumbers], 16, (b) => source.header(b))) {
    if (!header) throw new NodeReadError('a block with settlements is missing from the node', { retryable: true })
    headers.set(header.blockNumber, header)
  }
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
