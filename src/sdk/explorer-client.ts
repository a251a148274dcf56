/**
 * `ExplorerClient` (SPEC §4): the explorer's REST API as typed methods, and its `/stream` WebSocket as
 * handlers that see each settlement exactly once across reconnects — and across replicas, when it is
 * given several (`replicas/`). Runs wherever `fetch` does (Node 20+, browsers); see
 * `live/resolve-web-socket.ts` for how the WebSocket is found.
 */
import { LiveConnection } from './live/live-connection.js'
import { DEFAULT_RECONNECT } from './live/backoff.js'
import { probeReady } from './replicas/probe-ready.js'
import { ReplicaPool } from './replicas/replica-pool.js'
import { withFailover } from './replicas/with-failover.js'
import { requestJson } from './rest/request-json.js'
import { iterateEvents } from './rest/iterate-events.js'
import { openExportResponse, responseText } from './rest/stream-export.js'
import type {
  EventPage,
  EventsQuery,
  ExplorerClientOptions,
  ExportFormat,
  ExportQuery,
  Hex,
  IndexedHead,
  RequestOptions,
  SeriesQuery,
  Settlement,
  SettlementFilter,
  SettlementHandler,
  Stats,
  StatsFilter,
  StatsSeries,
  SubscribeOptions,
  Subscription,
} from './types.js'
import { endpointUrl, replicaUrls } from './urls.js'

const DEFAULT_TIMEOUT_MS = 10_000
/** A `/ready` probe while choosing a replica waits at most this long (or the REST timeout, if shorter). */
const PROBE_TIMEOUT_MS = 2_000

/**
 * Every REST method rejects with `ExplorerApiError` (an error answer; a lookup's 404 resolves `null`
 * instead), `ExplorerTimeoutError` or `ExplorerNetworkError`, or with the reason of an aborted `signal`.
 * With several replicas, a network error, a timeout or a 5xx is retried on the next replica, and the
 * last replica's failure is the one thrown.
 */
export class ExplorerClient {
  /** The first replica's address. */
  readonly baseUrl: string
  readonly baseUrls: readonly string[]
  /** The first replica's WebSocket address. */
  readonly wsUrl: string
  readonly timeout: number
  readonly #replicas: ReplicaPool
  readonly #live: LiveConnection

  constructor(options: ExplorerClientOptions) {
    const replicas = replicaUrls(options)
    this.baseUrls = replicas.map((r) => r.baseUrl)
    this.baseUrl = replicas[0]!.baseUrl
    this.wsUrl = replicas[0]!.wsUrl
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS
    const probeTimeout = this.timeout > 0 ? Math.min(this.timeout, PROBE_TIMEOUT_MS) : PROBE_TIMEOUT_MS
    this.#replicas = new ReplicaPool(replicas, (replica) => probeReady(replica.baseUrl, probeTimeout))
    this.#live = new LiveConnection({
      replicas: this.#replicas,
      reconnect: { ...DEFAULT_RECONNECT, ...options.reconnect },
      onError: options.onError ?? (() => {}),
      // The newest settlement's cursor is the next page's cursor of a one-settlement page (null below two).
      headCursor: async () => (await this.getEvents({ limit: 1 })).nextCursor ?? undefined,
    })
  }

  /** `GET /events`: one page, most recent first unless `order: 'asc'`; a 400 names the bad parameter. */
  async getEvents(query: EventsQuery = {}, options: RequestOptions = {}): Promise<EventPage> {
    return (await this.#get<EventPage>('/events', query, options))!
  }

  /** Every settlement matching `query`, page after page (`limit` sets the page size). */
  iterateEvents(query: EventsQuery = {}, options: RequestOptions = {}): AsyncGenerator<Settlement, void, undefined> {
    return iterateEvents((q) => this.getEvents(q, options), query)
  }

  /**
   * `GET /events/export`: every settlement matching `query` (any `getEvents` filter and `order`; no
   * `limit` or `cursor`) as CSV or NDJSON text, chunk by chunk as it arrives. The file is read at one
   * indexed head; it is never held whole here. Breaking out of the loop ends the download.
   * `timeout` covers the wait for the answer's start, not the whole file.
   */
  async *exportEvents(query: ExportQuery, { format, ...options }: RequestOptions & { format: ExportFormat }): AsyncGenerator<string, void, undefined> {
    let url = ''
    const response = await withFailover(this.#replicas, (replica) => {
      url = endpointUrl(replica.baseUrl, '/events/export', { ...query, format })
      return openExportResponse({ url, timeout: options.timeout ?? this.timeout, signal: options.signal })
    })
    yield* responseText(response, url, options.signal)
  }

  /** `GET /events/:txHash`: the transaction's settlement (lowest `logIndex`), or `null` when it has none. */
  async getEventByTxHash(txHash: Hex, options: RequestOptions = {}): Promise<Settlement | null> {
    return (await this.#get<Settlement>(`/events/${encodeURIComponent(txHash)}`, {}, options, true)) ?? null
  }

  /** `GET /events/order/:orderReference`: the earliest settlement with that order reference, or `null`. */
  async getEventByOrderReference(orderReference: Hex, options: RequestOptions = {}): Promise<Settlement | null> {
    return (await this.#get<Settlement>(`/events/order/${encodeURIComponent(orderReference)}`, {}, options, true)) ?? null
  }

  /**
   * `GET /`: the newest block the explorer has indexed (its confirmed depth behind the chain), or `null`
   * before it indexed any. Every settlement at or before it can be read.
   */
  async getIndexedHead(options: RequestOptions = {}): Promise<IndexedHead | null> {
    return (await this.#get<{ indexedHead: IndexedHead | null }>('/', {}, options))!.indexedHead
  }

  /**
   * `GET /stats`: totals, last 24 h, and the same figures per token address in `byToken`; with a
   * filter, those of the matching settlements only.
   */
  async getStats(filter: StatsFilter = {}, options: RequestOptions = {}): Promise<Stats> {
    return (await this.#get<Stats>('/stats', filter, options))!
  }

  /** `GET /stats/series`: the matching settlements per UTC hour or day, every bucket of the range (at most 2,000). */
  async getSeries(query: SeriesQuery, options: RequestOptions = {}): Promise<StatsSeries> {
    return (await this.#get<StatsSeries>('/stats/series', query, options))!
  }

  /**
   * Opens the WebSocket; resolves once it is open, rejects if the first attempt fails. From then on the
   * client reconnects by itself until `disconnect()`.
   */
  connect(): Promise<void> {
    return this.#live.connect()
  }

  /**
   * Calls `handler` for every matching settlement, in chain order, exactly once, across reconnects.
   * Handlers may be added before or after `connect()`. Each call is its own subscription on the server.
   */
  onSettlement(handler: SettlementHandler): Subscription
  onSettlement(filter: SettlementFilter, handler: SettlementHandler, options?: SubscribeOptions): Subscription
  onSettlement(
    filterOrHandler: SettlementFilter | SettlementHandler,
    maybeHandler?: SettlementHandler,
    options: SubscribeOptions = {},
  ): Subscription {
    if (typeof filterOrHandler === 'function') return this.#live.subscribe({}, filterOrHandler, {})
    if (typeof maybeHandler !== 'function') throw new TypeError('onSettlement(filter, handler): handler must be a function')
    return this.#live.subscribe(filterOrHandler, maybeHandler, options)
  }

  /** Drops every subscription that calls `handler`; returns whether there was one. */
  offSettlement(handler: SettlementHandler): boolean {
    return this.#live.removeHandler(handler) > 0
  }

  /** Closes the WebSocket and stops reconnecting. Subscriptions stay, and resume from their cursors on `connect()`. */
  disconnect(): Promise<void> {
    return this.#live.disconnect()
  }

  /** Whether the WebSocket is open right now. */
  get connected(): boolean {
    return this.#live.isOpen
  }

  /** The replica in use (REST and WebSocket), once one has been chosen and until it fails. */
  get activeBaseUrl(): string | undefined {
    return this.#replicas.active?.baseUrl
  }

  #get<T>(path: string, query: object, options: RequestOptions, notFoundAsNull = false): Promise<T | undefined> {
    return withFailover(this.#replicas, (replica) =>
      requestJson<T>({
        url: endpointUrl(replica.baseUrl, path, query),
        timeout: options.timeout ?? this.timeout,
        signal: options.signal,
        notFoundAsUndefined: notFoundAsNull,
      }),
    )
  }
}
