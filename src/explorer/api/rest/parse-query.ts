/**
 * The one place that validates HTTP query strings, for `/events`, the lookups, `/events/stream` and `/stats`.
 * Input hex is accepted in any case and lowercased; every problem names its parameter.
 */
import { AMOUNT_BOUNDS, compareAmounts, DEFAULT_LIMIT, EXPORT_FORMATS, FILTER_FIELDS, type ExportFormat, MAX_LIMIT, type EventsQuery, positionOfCursor, type SettlementFilter } from '../../query/index.js'
import type { Position } from '../../store/index.js'
import { MAX_SERIES_BUCKETS, seriesLength, type SeriesQuery, type StatsFilter } from '../../query/index.js'
import type { Hex } from '../../../wire/index.js'
import { badParam } from '../../../platform/http/index.js'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const BYTES16 = /^0x[0-9a-fA-F]{32}$/
export const BYTES32 = /^0x[0-9a-fA-F]{64}$/
const MAX_BLOCK = 2 ** 48 - 2
const MAX_TIMESTAMP = 2 ** 32 - 2

const AN_ADDRESS = { pattern: ADDRESS, what: 'an address (0x + 40 hex digits)' }
const BYTES16_VALUE = { pattern: BYTES16, what: 'a 16-byte hex value (0x + 32 hex digits)' }

export const FILTER_SHAPES: Record<(typeof FILTER_FIELDS)[number], { pattern: RegExp; what: string }> = {
  token: AN_ADDRESS,
  recipient: AN_ADDRESS,
  payer: AN_ADDRESS,
  orderReference: BYTES16_VALUE,
  acquirerId: BYTES16_VALUE,
  address: AN_ADDRESS,
}

export const RANGE_PARAMS = { fromBlock: MAX_BLOCK, toBlock: MAX_BLOCK, fromTimestamp: MAX_TIMESTAMP, toTimestamp: MAX_TIMESTAMP } as const

/** Splits a raw query string, refusing unknown and repeated parameters. */
export function readParams(query: string | undefined, allowed: readonly string[]): Map<string, string> {
  const params = new Map<string, string>()
  if (!query) return params
  for (const [name, value] of queryEntries(query)) {
    if (!allowed.includes(name)) {
      const hint = allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : '; this endpoint takes none'
      throw badParam(name, `unknown query parameter "${name}"${hint}`)
    }
    if (params.has(name)) throw badParam(name, `"${name}" is given more than once`)
    params.set(name, value)
  }
  return params
}

/**
 * The name/value pairs `URLSearchParams` reads from a query string. Strings with nothing to decode
 * (no `%`, no `+`, no leading `?`: what clients send) are split here, about a microsecond cheaper per request.
 */
export function queryEntries(query: string): Iterable<[string, string]> {
  if (NEEDS_DECODING.test(query)) return new URLSearchParams(query)
  const entries: [string, string][] = []
  for (const part of query.split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    entries.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)])
  }
  return entries
}
const NEEDS_DECODING = /[%+]|^\?/

export function parseHex(value: string, pattern: RegExp, param: string, what: string): Hex {
  if (!pattern.test(value)) throw badParam(param, `${param} must be ${what}, got "${truncate(value)}"`)
  return value.toLowerCase() as Hex
}

export const parseTxHash = (value: string) => parseHex(value, BYTES32, 'txHash', 'a transaction hash (0x + 64 hex digits)')
export const parseOrderReference = (value: string) => parseHex(value, BYTES16, 'orderReference', FILTER_SHAPES.orderReference.what)

function parseInteger(value: string, param: string, min: number, max: number): number {
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw badParam(param, `${param} must be an integer from ${min} to ${max}, got "${truncate(value)}"`)
  }
  return Number(value)
}

export function parseCursor(value: string, param = 'cursor'): Position {
  const position = positionOfCursor(value)
  if (!position) throw badParam(param, `${param} is not a cursor this explorer issued`)
  return position
}

/** Field values and amount bounds (`FILTER_KEYS`); parameters not among them are left for the caller. */
export function parseFilter(params: Map<string, string>): SettlementFilter {
  const filter: SettlementFilter = {}
  for (const field of FILTER_FIELDS) {
    const value = params.get(field)
    if (value !== undefined) filter[field] = parseHex(value, FILTER_SHAPES[field].pattern, field, FILTER_SHAPES[field].what)
  }
  return Object.assign(filter, parseAmountRange(params))
}

export const MAX_AMOUNT = 2n ** 256n - 1n
const DECIMAL = /^[0-9]+$/
/** 2^256 − 1 has 78 digits; longer input (leading zeros aside) is out of range without converting it. */
const MAX_AMOUNT_DIGITS = 78

/**
 * An amount bound as a canonical decimal string (leading zeros dropped), so that amounts compare by
 * length and then by characters. Only plain digits: no sign, decimal point, exponent, hex or blank.
 */
export function parseAmount(value: string, param: string): string {
  const what = `${param} must be a decimal integer from 0 to 2^256 − 1 in the token's smallest unit`
  if (!DECIMAL.test(value)) throw badParam(param, `${what}, got "${truncate(value)}"`)
  const canonical = value.replace(/^0+(?=.)/, '')
  if (canonical.length > MAX_AMOUNT_DIGITS || BigInt(canonical) > MAX_AMOUNT) throw badParam(param, `${what}; "${truncate(value)}" is above it`)
  return canonical
}

/** `minAmount` and `maxAmount`, each optional; a minimum above the maximum names `minAmount`. */
export function parseAmountRange(params: Map<string, string>): Pick<SettlementFilter, (typeof AMOUNT_BOUNDS)[number]> {
  const range: Pick<SettlementFilter, (typeof AMOUNT_BOUNDS)[number]> = {}
  for (const bound of AMOUNT_BOUNDS) {
    const value = params.get(bound)
    if (value !== undefined) range[bound] = parseAmount(value, bound)
  }
  if (range.minAmount !== undefined && range.maxAmount !== undefined && compareAmounts(range.minAmount, range.maxAmount) > 0) {
    throw badParam('minAmount', `minAmount (${range.minAmount}) is above maxAmount (${range.maxAmount})`)
  }
  return range
}

export const EVENTS_PARAMS = ['limit', 'cursor', 'order', ...FILTER_FIELDS, ...AMOUNT_BOUNDS, ...Object.keys(RANGE_PARAMS)] as const

export function parseEventsQuery(query: string | undefined): EventsQuery {
  return eventsQueryOf(readParams(query, EVENTS_PARAMS))
}

/** `GET /events/export`: every `/events` filter and `order`, no `limit` or `cursor`, and the file's `format`. */
export const EXPORT_PARAMS = ['format', 'order', ...FILTER_FIELDS, ...AMOUNT_BOUNDS, ...Object.keys(RANGE_PARAMS)] as const

export function parseExportQuery(query: string | undefined): { format: ExportFormat; query: EventsQuery } {
  const params = readParams(query, EXPORT_PARAMS)
  const format = params.get('format')
  if (format === undefined) throw badParam('format', `format is required: ${EXPORT_FORMATS.map((f) => `"${f}"`).join(' or ')}`)
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw badParam('format', `format must be ${EXPORT_FORMATS.map((f) => `"${f}"`).join(' or ')}, got "${truncate(format)}"`)
  }
  return { format: format as ExportFormat, query: eventsQueryOf(params) }
}

function eventsQueryOf(params: Map<string, string>): EventsQuery {
  const limit = params.has('limit') ? parseInteger(params.get('limit')!, 'limit', 1, MAX_LIMIT) : DEFAULT_LIMIT
  const order = params.get('order') ?? 'desc'
  if (order !== 'asc' && order !== 'desc') throw badParam('order', `order must be "asc" or "desc", got "${truncate(order)}"`)
  const q: EventsQuery = { limit, order, ...parseFilter(params) }
  if (params.has('cursor')) q.after = parseCursor(params.get('cursor')!)
  return Object.assign(q, parseRanges(params))
}

type Ranges = { -readonly [param in keyof typeof RANGE_PARAMS]?: number }

/** Block and timestamp bounds, each optional; a lower bound after its upper bound names the lower one. */
function parseRanges(params: Map<string, string>): Ranges {
  const q: Ranges = {}
  for (const [param, max] of Object.entries(RANGE_PARAMS) as [keyof typeof RANGE_PARAMS, number][]) {
    const value = params.get(param)
    if (value !== undefined) q[param] = parseInteger(value, param, 0, max)
  }
  if (q.fromBlock !== undefined && q.toBlock !== undefined && q.fromBlock > q.toBlock) {
    throw badParam('fromBlock', `fromBlock (${q.fromBlock}) is after toBlock (${q.toBlock})`)
  }
  if (q.fromTimestamp !== undefined && q.toTimestamp !== undefined && q.fromTimestamp > q.toTimestamp) {
    throw badParam('fromTimestamp', `fromTimestamp (${q.fromTimestamp}) is after toTimestamp (${q.toTimestamp})`)
  }
  return q
}

/** `GET /stats` filters: every `/events` filter but `orderReference` (statistics are of many settlements). */
export const STATS_PARAMS = ['token', 'recipient', 'payer', 'address', 'acquirerId', ...AMOUNT_BOUNDS, ...Object.keys(RANGE_PARAMS)] as const

export function parseStatsFilter(query: string | undefined): StatsFilter {
  const params = readParams(query, STATS_PARAMS)
  return { ...parseFilter(params), ...parseRanges(params) }
}

export const SERIES_PARAMS = ['interval', ...STATS_PARAMS] as const

/** `GET /stats/series`: `interval`, `fromTimestamp` and `toTimestamp` are required, and the range holds at most MAX_SERIES_BUCKETS buckets. */
export function parseSeriesQuery(query: string | undefined): SeriesQuery {
  const params = readParams(query, SERIES_PARAMS)
  for (const param of ['interval', 'fromTimestamp', 'toTimestamp']) {
    if (!params.has(param)) throw badParam(param, `${param} is required`)
  }
  const interval = params.get('interval')!
  if (interval !== 'hour' && interval !== 'day') throw badParam('interval', `interval must be "hour" or "day", got "${truncate(interval)}"`)
  const q = { interval, ...parseFilter(params), ...parseRanges(params) } as SeriesQuery
  const buckets = seriesLength(interval, q.fromTimestamp, q.toTimestamp)
  if (buckets > MAX_SERIES_BUCKETS) {
    throw badParam('toTimestamp', `the range holds ${buckets} ${interval} buckets, above the ${MAX_SERIES_BUCKETS} a request may ask for; narrow it or take a longer interval`)
  }
  return q
}

const truncate = (value: string) => (value.length > 80 ? `${value.slice(0, 80)}…` : value)

