/**
 * Request and response types of the SDK. The response shapes are the explorer's own (SPEC §2), re-exported
 * from `src/types` so that server and client can never drift apart; the request shapes are the wire
 * parameters of SPEC §3.1 and §3.3.
 */
import type { Hex, Settlement, SettlementFilter } from '../wire/index.js'

/** `SettlementFilter` keys accept hex in any case. */
export type { AmountsBySymbol, EventPage, Hex, SeriesBucket, Settlement, SettlementFilter, Stats, StatsSeries, TokenStats } from '../wire/index.js'

/** The query parameters of `GET /events`. Omitted keys take the server defaults. */
export interface EventsQuery extends SettlementFilter {
  /** 1..100; server default 20. */
  limit?: number
  /** `nextCursor` of a previous page. */
  cursor?: string
  /** `desc` (default, most recent first) or `asc`. */
  order?: 'asc' | 'desc'
  /** Inclusive block bounds. */
  fromBlock?: number
  toBlock?: number
  /** Inclusive bounds in Unix seconds. */
  fromTimestamp?: number
  toTimestamp?: number
}

/** The filters of `GET /stats`: every `GET /events` filter but `orderReference`, with the same bounds. */
export type StatsFilter = Omit<EventsQuery, 'limit' | 'cursor' | 'order' | 'orderReference'>

/** The parameters of `GET /stats/series`: an interval, a required time range of at most 2,000 buckets, and any `StatsFilter`. */
export interface SeriesQuery extends StatsFilter {
  interval: 'hour' | 'day'
  fromTimestamp: number
  toTimestamp: number
}

/** The parameters of `GET /events/export`: every filter and `order` of `GET /events`, no page. */
export type ExportQuery = Omit<EventsQuery, 'limit' | 'cursor'>

/** `csv`: RFC 4180 with a header row; `ndjson`: one settlement JSON object per line. */
export type ExportFormat = 'csv' | 'ndjson'

/** The newest block an explorer has indexed (`indexedHead` of `GET /`). */
export interface IndexedHead {
  blockNumber: number
  blockHash: Hex
}

/** Per-call options of every REST method. */
export interface RequestOptions {
  /** Milliseconds; overrides the client's `timeout` for this call. */
  timeout?: number
  /** Aborts the call (rejects with the signal's reason). */
  signal?: AbortSignal
}

/** RFC 9457 problem details, the explorer's one error body (SPEC §3.2). */
export interface ProblemDetails {
  type: string
  title: string
  status: number
  detail: string
  /** The query parameter at fault, when there is one. */
  param?: string
  [extension: string]: unknown
}

export interface ReconnectOptions {
  /** Delay before the first reconnect attempt, in ms; default 250. */
  initialDelayMs?: number
  /** Upper bound of the doubling delay, in ms; default 10 000. */
  maxDelayMs?: number
}

export interface ExplorerClientOptions {
  /** The explorer's HTTP address, e.g. `https://explorer.example.com` (a path prefix is kept). */
  baseUrl?: string
  /**
   * Replicas of the explorer (after `baseUrl`, if given): the client uses one at a time and fails over to
   * another when it stops answering. At least one of `baseUrl` and `baseUrls` is required.
   */
  baseUrls?: readonly string[]
  /** With a single base URL only. Default: each base URL with a ws/wss scheme and `/stream` appended to its path. */
  wsUrl?: string
  /**
   * REST timeout in milliseconds (connect, headers and body) per replica tried; default 10 000; 0
   * disables it.
   */
  timeout?: number
  reconnect?: ReconnectOptions
  /** Live errors that belong to no call: `ERROR` messages, undecodable frames, failed reconnects. */
  onError?: (error: Error) => void
}

/** What a settlement handler receives besides the event. */
export interface SettlementContext {
  /** Resume point: pass it as `since` to continue after this settlement. */
  cursor: string
}

export type SettlementHandler = (event: Settlement, context: SettlementContext) => void

export interface SubscribeOptions {
  /** Start by replaying every matching settlement after this cursor (REST, WebSocket or SSE cursor). */
  since?: string
  /** Called when a chain reorganisation takes back a settlement this subscription already delivered. */
  onRemoved?: (event: Settlement) => void
}

/** A live subscription, as returned by `onSettlement`. */
export interface Subscription {
  readonly filter: SettlementFilter
  /** Cursor of the last settlement delivered (or the `since` it started from). */
  readonly cursor: string | undefined
  /** Resolves once the server acknowledged the subscription (again after every reconnect, the first time only). */
  readonly ready: Promise<void>
  unsubscribe(): void
}
