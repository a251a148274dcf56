/**
 * A validated `GET /events` request (or a live filter), as the query engine takes it. Only the edge
 * (REST query string, WebSocket message) builds these; hex values are already lowercase.
 */
import type { Position } from '../store/index.js'
import type { SettlementFilter } from '../../wire/index.js'

export type { SettlementFilter }

export const FILTER_FIELDS = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId', 'address'] as const satisfies readonly (keyof SettlementFilter)[]

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
