/**
 * The REST API of SPEC §3.1 on a uWebSockets.js app. Reads that touch many entries run through the
 * query executor (worker pool); small fixed reads (stats, health, metrics) answer inline. Answers about
 * the settlements carry a validator and a Cache-Control (http-cache.ts); a matching `If-None-Match` is
 * answered 304 before any query runs, and cached pages go out compressed when the client accepts it.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import type { ExplorerOptions } from '../../../config/index.js'
import type { IndexerStatus } from '../../indexer/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import { DURATION_BUCKETS_SECONDS, type Metrics } from '../../../platform/observability/index.js'
import type { SharedConnections } from '../../../platform/limits/index.js'
import { indexedHead, QueryPoolBusy, statsBody, statsWalkSize, type KeyViews, type StatsFilter, type QueryExecutor, type QueryTask, type TokenCache } from '../../query/index.js'
import type { Store } from '../../store/index.js'
import type { Hex } from '../../../wire/index.js'
import { acceptedCoding, badParam, checkTargetLength, errorReply, etagMatches, json, problemHeaders, problemReply, reply, replyLater, type Reply } from '../../../platform/http/index.js'
import type { HttpValidators, Validity } from './http-cache.js'
import { ENDPOINTS } from './explorer-routes.js'
import { explorerOpenApi } from './openapi.js'
import { registerExport } from './register-export.js'
import type { PageCache } from './page-cache.js'
import type { WebFront } from '../web/register-web.js'
import { EVENTS_PARAMS, parseEventsQuery, parseOrderReference, parseSeriesQuery, parseStatsFilter, parseTxHash, readParams } from './parse-query.js'

export interface RestContext {
  options: ExplorerOptions
  store: Store
  tokens: TokenCache
  executor: QueryExecutor
  /** Rendered `/events` pages, kept exact by the indexer's reports (page-cache.ts). */
  pages: PageCache
  /** Views of hot single-field filters, answering any of their pages (query/key-views.ts). */
  views: KeyViews
  /** ETags and Cache-Control of the answers (http-cache.ts). */
  validators: HttpValidators
  /** The indexer's progress (`/ready`): the indexer itself, or its last report in a server thread. */
  indexer: { status(): IndexerStatus }
  metrics: Metrics
  logger: Logger
  version: string
  /** The web page, which answers `GET /` for browsers (web/register-web.ts). */
  web?: WebFront
  /** Exports running, counted across server threads (register-export.ts). */
  exports?: SharedConnections
}

export function registerRest(app: TemplatedApp, ctx: RestContext): void {
  const requests = ctx.metrics.counter('http_requests_total', 'HTTP requests answered, by route and status')
  const durations = ctx.metrics.histogram('http_request_duration_seconds', 'Seconds from a request to its answer, by route', DURATION_BUCKETS_SECONDS)
  const queries = ctx.metrics.counter('queries_total', 'Queries run for REST answers (not those from the page cache or answered 304), by kind')
  const { logger } = ctx

  /** A route whose answer is computed now; validation errors become problems. */
  const now = (route: string, allowed: readonly string[], handle: (req: HttpRequest) => Reply) => (res: HttpResponse, req: HttpRequest) => {
    const started = performance.now()
    let r: Reply
    try {
      const search = req.getQuery()
      checkTargetLength(req, search)
      readParams(search, allowed)
      r = handle(req)
    } catch (error) {
      r = errorReply(error, logger)
    }
    requests(1, { route, status: String(r.status) })
    durations((performance.now() - started) / 1000, { route })
    reply(res, r)
  }

  /**
   * A route answered by the query executor: at once when it runs here, when the worker answers
   * otherwise. With `pages`, pages come from the page cache when it holds them and are offered to it.
   * `validity` gives the answer's validator, read before the query runs: a client holding it gets 304
   * and no query runs. Nothing is allocated per request beyond the answer on the synchronous path (no
   * closures: under tsx each one created also pays a `name` definition).
   */
  const query = (route: string, parse: (req: HttpRequest, search: string | undefined) => QueryTask, validity: (task: QueryTask) => Validity, notFound?: string, pages?: PageCache) => {
    const count = (r: Reply, started: number) => {
      requests(1, { route, status: String(r.status) })
      durations((performance.now() - started) / 1000, { route })
      return r
    }
    const answer = (task: QueryTask, key: string, readAt: number, valid: Validity, body: Uint8Array | undefined, started: number) => {
      if (pages && body && task.kind === 'events') pages.offer(key, task.query, body, readAt)
      return count(body === undefined ? problemReply(404, notFound ?? 'not found', undefined, valid.headers) : { ...json(body), headers: valid.headers }, started)
    }
    return (res: HttpResponse, req: HttpRequest) => {
      const started = performance.now()
      // Read once: each read makes a new string from uWS's buffer.
      const search = req.getQuery()
      const key = search ?? ''
      const ifNoneMatch = req.getHeader('if-none-match')
      const cached = pages?.get(key)
      if (cached) {
        const valid = ctx.validators.settlements(cached.toBlock)
        if (etagMatches(ifNoneMatch, valid.etag)) return reply(res, count(notModified(valid), started))
        const coding = acceptedCoding(req.getHeader('accept-encoding'))
        if (!coding) return reply(res, count({ ...json(cached.body), headers: valid.headers }, started))
        return reply(res, count({ ...json(pages!.encoded(cached, coding)), headers: { ...valid.headers, 'content-encoding': coding } }, started))
      }
      const readAt = pages?.version ?? 0
      let task: QueryTask
      let valid: Validity
      let result: ReturnType<QueryExecutor['run']>
      try {
        checkTargetLength(req, search)
        task = parse(req, search)
        valid = validity(task)
        if (etagMatches(ifNoneMatch, valid.etag)) return reply(res, count(notModified(valid), started))
        queries(1, { kind: task.kind })
        result = (task.kind === 'events' ? ctx.views.page(task.query) : undefined) ?? ctx.executor.run(task)
      } catch (error) {
        return reply(res, count(errorReply(error, logger), started))
      }
      if (!(result instanceof Promise)) return reply(res, answer(task, key, readAt, valid, result, started))
      const pending = result
      replyLater(res, logger, async () => {
        try {
          return answer(task, key, readAt, valid, await pending, started)
        } catch (error) {
          if (error !== QueryPoolBusy.error) throw error
          return count(POOL_BUSY, started)
        }
      })
    }
  }
  const settlements = (task: QueryTask) => ctx.validators.settlements(task.kind === 'events' ? task.query.toBlock : undefined)
  const stats = () => ctx.validators.stats()

  // One address, two audiences: the same URL answers the page or the JSON root, so caches must key on Accept.
  const apiRoot = now('/', [], (req) => cacheable(req, ctx.validators.head(), () => json(JSON.stringify(root(ctx))), 'accept, accept-encoding'))
  app.get('/', (res, req) => (ctx.web?.wantsPage(req) ? ctx.web.serveRoot(res, req) : apiRoot(res, req)))
  app.get('/health', now('/health', [], () => json('{"status":"ok"}')))
  app.get('/ready', now('/ready', [], () => ready(ctx)))
  // Without filters, the running totals (cached until the next commit); with filters, buckets and walks.
  const statsNow = statsBody(ctx.store, ctx.tokens)
  const allStats = now('/stats', [], (req) => cacheable(req, stats(), () => json(statsNow())))
  const filteredStats = query(
    '/stats',
    (_, search) => {
      const filter = boundedWalk(ctx, parseStatsFilter(search))
      return { kind: 'stats', filter, nowSeconds: Date.now() / 1000 }
    },
    stats,
  )
  app.get('/stats', (res, req) => (req.getQuery() ? filteredStats(res, req) : allStats(res, req)))
  app.get('/stats/series', query('/stats/series', (_, search) => ({ kind: 'series', query: boundedWalk(ctx, parseSeriesQuery(search)) }), stats))
  const openApi = Buffer.from(JSON.stringify(explorerOpenApi(ctx.version)))
  app.get('/openapi.json', now('/openapi.json', [], () => json(openApi)))
  app.get(
    '/metrics',
    now('/metrics', [], () => ({ status: 200, body: ctx.metrics.render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' })),
  )
  app.get('/events', query('/events', (_, search) => ({ kind: 'events', query: parseEventsQuery(search), maxWalk: ctx.options.eventsMaxWalk }), settlements, undefined, ctx.pages))
  registerExport(app, { store: ctx.store, tokens: ctx.tokens, limits: ctx.options.exports, trustedProxies: ctx.options.live.trustedProxies, exports: ctx.exports, metrics: ctx.metrics, logger })
  /** A single-settlement lookup by a path parameter; the raw segment is validated as is, never URL-decoded. */
  const lookup = (route: string, field: 'txHash' | 'orderReference', parse: (value: string) => Hex, notFound: string) =>
    app.get(
      route,
      query(
        route,
        (req, search) => {
          readParams(search, [])
          return { kind: 'first', field, value: parse(req.getParameter(0) ?? '') }
        },
        settlements,
        notFound,
      ),
    )
  lookup('/events/order/:orderReference', 'orderReference', parseOrderReference, 'no settlement carries that order reference')
  lookup('/events/:txHash', 'txHash', parseTxHash, 'no settlement in that transaction')
}

const notModified = (valid: Validity): Reply => ({ status: 304, body: '', headers: valid.headers })

/** An answer made inline (`make`), or 304 when the client holds `valid`'s tag; `vary` names what else picks the answer. */
function cacheable(req: HttpRequest, valid: Validity, make: () => Reply, vary?: string): Reply {
  const headers = vary ? { ...valid.headers, vary } : valid.headers
  if (etagMatches(req.getHeader('if-none-match'), valid.etag)) return { status: 304, body: '', headers }
  return { ...make(), headers }
}

/** Everything else: 405 for other methods, 404 for unknown paths. Registered last. */
export function registerFallbacks(app: TemplatedApp): void {
  app.options('/*', (res) => {
    reply(res, {
      status: 204,
      body: '',
      headers: { 'access-control-allow-methods': 'GET', 'access-control-allow-headers': 'content-type, last-event-id', 'access-control-max-age': '86400' },
    })
  })
  app.any('/*', (res, req) => {
    if (req.getMethod() !== 'get') return reply(res, problemReply(405, `${req.getMethod().toUpperCase()} is not allowed; this API is read-only (GET)`, undefined, { allow: 'GET' }))
    reply(res, problemReply(404, `no route ${req.getUrl()}; see GET / for the endpoint list`))
  })
}

function root(ctx: RestContext) {
  const head = indexedHead(ctx.store)
  return {
    name: 'settlement-explorer',
    version: ctx.version,
    chainId: ctx.options.chainId,
    contract: ctx.options.contract,
    confirmations: ctx.options.confirmations,
    indexedHead: head ? { blockNumber: head.blockNumber, blockHash: head.blockHash } : null,
    endpoints: ENDPOINTS,
    eventsParams: EVENTS_PARAMS,
  }
}

/**
 * Refuses a statistic that buckets cannot answer and whose walk would pass STATS_MAX_WALK settlements,
 * naming the parameter that made it a walk: an amount bound, the second of several field filters, or
 * the one field filter (a payer; an address whose payments to others are many).
 */
function boundedWalk<F extends StatsFilter>(ctx: RestContext, f: F): F {
  const size = statsWalkSize(ctx.store, f)
  const limit = ctx.options.statsMaxWalk
  if (size <= limit) return f
  const fields = (['payer', 'recipient', 'address', 'acquirerId'] as const).filter((field) => f[field] !== undefined)
  const param = f.minAmount !== undefined ? 'minAmount' : f.maxAmount !== undefined ? 'maxAmount' : (fields[1] ?? fields[0] ?? 'fromTimestamp')
  throw badParam(
    param,
    `these filters are summed by reading ${size} settlements one by one, above the ${limit} a request may read (STATS_MAX_WALK); add a payer, recipient, address, acquirerId or token, or narrow fromTimestamp/toTimestamp`,
  )
}

/** What `/ready` answers 200 to (and the `explorer_ready` gauge shows): the indexer within `maxLag` confirmed blocks of the chain, its last step without error. */
export function indexerReady(status: IndexerStatus, maxLag: number): boolean {
  return status.lag !== undefined && status.lag <= maxLag && status.lastError === undefined
}

/** The answer to a query the full pool refused (QUERY_MAX_QUEUE): made once, as the refusal itself. */
const POOL_BUSY = problemReply(503, QueryPoolBusy.error.message, undefined, problemHeaders(503))

function ready(ctx: RestContext): Reply {
  const status = ctx.indexer.status()
  const isReady = indexerReady(status, ctx.options.readyMaxLag)
  const body = { status: isReady ? 'ready' : 'syncing', ...status, maxLag: ctx.options.readyMaxLag }
  return json(JSON.stringify(body), isReady ? 200 : 503)
}
