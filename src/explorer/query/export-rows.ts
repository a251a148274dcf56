/**
 * `GET /events/export`: every settlement matching a query, in its order, rendered as CSV (RFC 4180)
 * or NDJSON a chunk at a time. The file holds the settlements up to the head indexed when the export
 * opens (the range is cut there), each once. Each chunk reads in a read transaction of its own and ends
 * it, resuming after the last candidate the previous chunk read (keyset, as `/events` pages do): an
 * export that waits for a slow reader holds no snapshot, so LMDB can reuse the pages commits free
 * meanwhile, and the data file does not grow with the exports' lifetimes. A reorganisation during an
 * export shows in the blocks not yet written, as the chain now has them. A chunk reads a bounded number
 * of candidates, so a sparse intersection costs many short chunks, never one long one.
 * Candidates come from the most selective field's index (or every settlement) in key order, each
 * checked against the other filters and the amount bounds, as `/events` pages do.
 */
import type { Transaction } from 'lmdb'
import { blockEndPk, decodePk, decodeStored, fieldHex, readHead, storedAmount, writeRecordJson, type StoredSettlement, readRecord } from '../store/index.js'
import type { Store } from '../store/index.js'
import { keyRange, type KeyRange } from './block-range.js'
import { amountInRange, type EventsQuery } from './events-query.js'
import { fieldFilters, indexCount, indexPks, indexWalk, recordFilter, type FieldFilter } from './field-index.js'
import { pageBounds } from './run-events-query.js'
import { primaryKeys } from './primary-walk.js'
import type { TokenCache } from './token-cache.js'
import { csvCell } from '../../wire/index.js'

export type ExportFormat = 'csv' | 'ndjson'
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'ndjson']

/** The settlement fields by their names (SPEC §2.1), then the columns for people. */
export const CSV_COLUMNS = [
  'txHash',
  'blockNumber',
  'logIndex',
  'timestamp',
  'token',
  'tokenSymbol',
  'tokenDecimals',
  'payer',
  'recipient',
  'amount',
  'fee',
  'orderReference',
  'acquirerId',
  'domainSeparator',
  'timeUtc',
  'amountDecimal',
  'feeDecimal',
] as const

const CRLF = '\r\n'
const ROOM = 4096

/** Candidates one chunk may read: a chunk of a sparse intersection stays a few milliseconds of work. */
export const EXPORT_CANDIDATES_PER_CHUNK = 4096

export interface ExportWalk {
  /** The indexed head the export reads up to (the block its file ends with at most). */
  readonly head: number | undefined
  /** Rows rendered so far. */
  readonly rows: number
  /**
   * The next chunk: whole rows of about `bytes` bytes, read from at most `candidates` candidates (it may
   * then be empty), or `undefined` once every row was given. It is valid until the next call (the walk
   * renders every chunk into one buffer of its own: no allocation per chunk).
   */
  next(bytes: number, candidates?: number): Buffer | undefined
  /** Ends the walk (at the end, or when the client went away); it holds nothing between chunks. */
  close(): void
}

/** What a walk reads: the index it drives with (none: every settlement), the filters it checks. */
interface ExportPlan {
  driver: FieldFilter | undefined
  rest: FieldFilter[]
  bounded: boolean
}

export function openExport(store: Store, tokens: TokenCache, q: EventsQuery, format: ExportFormat): ExportWalk {
  const head = readHead(store)?.blockNumber
  const plan = exportPlan(store, q)
  // What is left to read; `undefined` once the walk is through.
  let left = head === undefined ? undefined : upTo(keyRange(store, q), head)
  let count = 0
  let headerDue = format === 'csv'
  let out: Buffer | undefined
  return {
    head,
    get rows() {
      return count
    },
    next(bytes, candidates = EXPORT_CANDIDATES_PER_CHUNK) {
      if (!left && !headerDue) return undefined
      if (!out || out.length < bytes + ROOM) out = Buffer.allocUnsafe(bytes + ROOM)
      let p = 0
      if (headerDue) {
        p += out.write(CSV_COLUMNS.join(',') + CRLF, p, 'latin1')
        headerDue = false
      }
      if (!left) return out.subarray(0, p)
      const transaction = store.env.useReadTransaction()
      const keys = candidateKeys(store, plan, left, q.order, transaction)
      const matchesRest = recordFilter(store, plan.rest)
      let last: Buffer | undefined
      let through = true
      try {
        for (let read = 0; ; read++) {
          if (p >= bytes || read >= candidates) {
            through = false
            break
          }
          const key = keys.next()
          if (key.done) break
          const pk = (last = key.value)
          const value = readRecord(store, pk, transaction)!
          if (plan.bounded && !amountInRange(storedAmount(value), q)) continue
          if (!matchesRest(value)) continue
          if (format === 'ndjson') {
            let end: number
            while ((end = writeRecordJson(out, p, pk, value, tokens, store)) < 0 || end >= out.length) out = grow(out, p)
            out[end] = 0x0a
            p = end + 1
          } else {
            const line = csvRow(decodeStored(store, pk, value), tokens)
            if (p + Buffer.byteLength(line) > out.length) out = grow(out, p, Buffer.byteLength(line))
            p += out.write(line, p, 'utf8')
          }
          count++
        }
        // Decoded now, while `last` (which may point into the transaction's memory) is valid.
        left = through || !last ? undefined : pageBounds(left, { order: q.order, after: decodePk(last) })
      } finally {
        keys.return(undefined)
        transaction.done()
      }
      return p === 0 && !left ? undefined : out.subarray(0, p)
    },
    close() {
      left = undefined
      headerDue = false
    },
  }
}

/** `range` cut at the end of block `head`, so that blocks indexed during the export stay out of its file. */
function upTo(range: KeyRange | undefined, head: number): KeyRange | undefined {
  if (!range) return undefined
  const end = blockEndPk(head)
  if (Buffer.compare(end, range.high) < 0) range = { ...range, high: end }
  return Buffer.compare(range.low, range.high) < 0 ? range : undefined
}

/** The most selective field's index drives the walk (exact counts choose it, once, at the start). */
function exportPlan(store: Store, q: EventsQuery): ExportPlan {
  const bounded = q.minAmount !== undefined || q.maxAmount !== undefined
  const filters = fieldFilters(q)
  const range = keyRange(store, q)
  if (filters.length === 0 || !range) return { driver: undefined, rest: filters, bounded }
  const [driver, ...rest] = filters.map((f) => ({ f, n: indexCount(store, f, range) })).sort((a, b) => a.n - b.n).map(({ f }) => f)
  return { driver, rest, bounded }
}

function grow(out: Buffer, used: number, atLeast = 0): Buffer {
  const bigger = Buffer.allocUnsafe(out.length * 2 + atLeast)
  out.copy(bigger, 0, 0, used)
  return bigger
}

/** Primary keys of the candidates inside `range`, in the query's order, read in `transaction`. */
function candidateKeys(store: Store, plan: ExportPlan, range: KeyRange, order: 'asc' | 'desc', transaction: Transaction): Generator<Buffer> {
  if (!plan.driver) return primaryKeys(store, range, order, transaction)
  return indexPks(indexWalk(store, plan.driver, range, order, transaction))
}

/**
 * One RFC 4180 record: fields as `/events` writes them, then UTC time and the amounts in token units.
 * Only `tokenSymbol` is text from outside (the token contract's `symbol()`): it is written by `csvCell`,
 * quoted when it must be and with an apostrophe in front of what a spreadsheet would run as a formula;
 * the other fields are hex and unsigned integers of our own encoding.
 */
function csvRow(s: StoredSettlement, tokens: TokenCache): string {
  const token = tokens.get(fieldHex(s, 'token'))
  const hex = (field: Parameters<typeof fieldHex>[1]) => `0x${fieldHex(s, field)}`
  const fields = [
    hex('txHash'),
    s.blockNumber,
    s.logIndex,
    s.timestamp,
    hex('token'),
    csvCell(token.symbol),
    token.decimals,
    hex('payer'),
    hex('recipient'),
    s.amount,
    s.fee,
    hex('orderReference'),
    hex('acquirerId'),
    hex('domainSeparator'),
    new Date(s.timestamp * 1000).toISOString(),
    decimalAmount(s.amount, token.decimals),
    decimalAmount(s.fee, token.decimals),
  ]
  return fields.join(',') + CRLF
}

/** An integer amount in the token's units with every decimal written ("25.500000" for 25500000 at 6 decimals); exact. */
export function decimalAmount(units: string, decimals: number): string {
  if (decimals === 0) return units
  const digits = units.padStart(decimals + 1, '0')
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}
