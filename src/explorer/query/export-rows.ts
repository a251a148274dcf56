/**
 * `GET /events/export`: every settlement matching a query, in its order, rendered as CSV (RFC 4180)
 * or NDJSON a chunk at a time. The walk reads one LMDB read transaction from its first row to its last
 * (taken when the export opens), so the file is the chain at one head even while blocks arrive or a
 * reorg takes some back; it holds one chunk and the walk's cursors, whatever the number of rows.
 * Candidates come from the most selective field's index (or every settlement) in key order, each
 * checked against the other filters and the amount bounds, as `/events` pages do.
 */
import type { Transaction } from 'lmdb'
import { decodeRecord, fieldHex, indexValuePk, readHead, recordAmount, writeRecordJson, type StoredSettlement } from '../store/index.js'
import type { Store } from '../store/index.js'
import { keyRange } from './block-range.js'
import { amountInRange, type EventsQuery } from './events-query.js'
import { fieldFilters, indexCount, indexWalk, matchesAll } from './field-index.js'
import { primaryKeys } from './run-events-query.js'
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

export interface ExportWalk {
  /** The indexed head the export reads at (the block its file ends with at most). */
  readonly head: number | undefined
  /** Rows rendered so far. */
  readonly rows: number
  /** The next chunk of about `bytes` bytes (whole rows), or `undefined` when every row was given. */
  next(bytes: number): Buffer | undefined
  /** Ends the walk and its read transaction (at the end, or when the client went away). */
  close(): void
}

/** Opens the walk: its read transaction is the thread's current snapshot, the one `keyRange` reads in this same turn. */
export function openExport(store: Store, tokens: TokenCache, q: EventsQuery, format: ExportFormat): ExportWalk {
  const transaction = store.env.useReadTransaction()
  const head = readHead(store)?.blockNumber
  const rows = matchingRows(store, q, transaction)
  let count = 0
  let closed = false
  let headerDue = format === 'csv'
  const close = () => {
    if (closed) return
    closed = true
    rows.return(undefined)
    transaction.done()
  }
  return {
    head,
    get rows() {
      return count
    },
    next(bytes) {
      if (closed) return undefined
      let out: Buffer = Buffer.allocUnsafe(bytes + ROOM)
      let p = 0
      if (headerDue) {
        p += out.write(CSV_COLUMNS.join(',') + CRLF, p, 'latin1')
        headerDue = false
      }
      while (p < bytes) {
        const row = rows.next()
        if (row.done) break
        const { pk, value } = row.value
        if (format === 'ndjson') {
          let end: number
          while ((end = writeRecordJson(out, p, pk, value, tokens)) < 0 || end >= out.length) out = grow(out, p)
          out[end] = 0x0a
          p = end + 1
        } else {
          const line = csvRow(decodeRecord(pk, value), tokens)
          if (p + Buffer.byteLength(line) > out.length) out = grow(out, p, Buffer.byteLength(line))
          p += out.write(line, p, 'utf8')
        }
        count++
      }
      if (p === 0) {
        close()
        return undefined
      }
      return out.subarray(0, p)
    },
    close,
  }
}

function grow(out: Buffer, used: number, atLeast = 0): Buffer {
  const bigger = Buffer.allocUnsafe(out.length * 2 + atLeast)
  out.copy(bigger, 0, 0, used)
  return bigger
}

/** Matching settlements in the query's order, read in `transaction`; `value` is valid until the next row. */
function* matchingRows(store: Store, q: EventsQuery, transaction: Transaction): Generator<{ pk: Buffer; value: Buffer }> {
  const range = keyRange(store, q)
  if (!range) return
  const filters = fieldFilters(q)
  const bounded = q.minAmount !== undefined || q.maxAmount !== undefined
  let keys: Iterable<Buffer>
  let rest = filters
  if (filters.length === 0) keys = primaryKeys(store, range, q.order, transaction)
  else {
    const [driver, ...others] = filters.map((f) => ({ f, n: indexCount(store, f, range) })).sort((a, b) => a.n - b.n).map(({ f }) => f)
    rest = others
    keys = (function* () {
      for (const value of indexWalk(store, driver!, range, q.order, transaction)) yield indexValuePk(value)
    })()
  }
  for (const pk of keys) {
    // lmdb-js reads in the transaction given (read.js); its typings omit the options argument.
    const value = (store.events.getBinaryFast as (key: Buffer, options: { transaction: Transaction }) => Buffer | undefined).call(store.events, pk, { transaction })!
    if (bounded && !amountInRange(recordAmount(value), q)) continue
    if (rest.length > 0 && !matchesAll(decodeRecord(pk, value), rest)) continue
    yield { pk, value }
  }
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
