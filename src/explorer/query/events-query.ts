/**
 * A validated `GET /events` request (or a live filter), as the query engine takes it. Only the edge
 * (REST query string, WebSocket message) builds these; hex values are already lowercase.
 */
import type { Position } from '../store/index.js'
import type { SettlementFilter } from '../../wire/index.js'

export type { SettlementFilter }

export const FILTER_FIELDS = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId', 'address'] as const satisfies readonly (keyof SettlementFilter)[]

/** Inclusive bounds of `amount`, canonical decimal strings (no sign, no leading zero), at most 2^256 − 1. */
export const AMOUNT_BOUNDS = ['minAmount', 'maxAmount'] as const satisfies readonly (keyof SettlementFilter)[]

/** Every filter key, as `/events`, the live filters, the export and `/stats` take them. */
export const FILTER_KEYS = [...FILTER_FIELDS, ...AMOUNT_BOUNDS] as const

/** Orders canonical decimal strings (bounds, or stored amounts) as the integers they write. */
export function compareAmounts(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}

/** Whether an amount (canonical decimal) lies inside a filter's amount bounds; true when it has none. */
export function amountInRange(amount: string, filter: SettlementFilter): boolean {
  return (filter.minAmount === undefined || compareAmounts(amount, filter.minAmount) >= 0) && (filter.maxAmount === undefined || compareAmounts(amount, filter.maxAmount) <= 0)
}

export interface EventsQuery extends SettlementFilter {
  limit: number
  order: 'asc' | 'desc'
  /** Position of the last settlement of the previous page (from the cursor). */
  after?: Position
  fromBlock?: number
  toBlock?: number
  fromTimestamp?: number
  toTimestamp?: number
}

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100
