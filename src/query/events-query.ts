/**
 * A validated `GET /events` request (or a live filter), as the query engine takes it. Only the edge
 * (REST query string, WebSocket message) builds these; hex values are already lowercase.
 */
import type { Hex } from '../types/settlement.js'
import type { Position } from '../store/keys.js'

export interface SettlementFilter {
  token?: Hex
  recipient?: Hex
  payer?: Hex
  orderReference?: Hex
  acquirerId?: Hex
}

export const FILTER_FIELDS = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId'] as const satisfies readonly (keyof SettlementFilter)[]

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
