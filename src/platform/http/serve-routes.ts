/**
 * The router of the node:http servers (the payment pages, the demo store, the CA's admin API), rather
 * than uWebSockets.js (the explorer's): a few requests per user, server-sent events held open, bodies read
 * under a cap — node:http does each in a few lines and closes every connection (open event streams
 * included) on stop. Routes are matched in order; an unknown path gets the caller's `notFound`, a known
 * path with another method a 405 with `Allow` (plain text unless the caller answers it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { DURATION_BUCKETS_SECONDS, type Logger, type Metrics } from '../observability/index.js'
import { listenNodeHttp, type ListeningServer } from './listen-node-http.js'

export interface RouteRequest {
  req: IncomingMessage
  res: ServerResponse
  /** The path the routes were matched against. */
  path: string
  /** The path's groups, not decoded. */
  params: string[]
}

export interface Route {
  method: 'GET' | 'POST' | 'OPTIONS'
  /** Anchored; its groups are the path parameters. */
  path: RegExp
  handle(request: RouteRequest): Promise<void> | void
}

export interface ServeRoutesParams {
  host: string
  port: number
  /** The setting named when the port is taken, e.g. WIDGET_PORT. */
  portSetting: string
  routes: Route[]
  notFound(request: RouteRequest): void
  /** `allow`: the path's methods, e.g. `GET, POST`; the answer must carry it as `Allow`. */
  methodNotAllowed?(request: RouteRequest, allow: string): void
  /**
   * `resolved` (the default): the WHATWG URL's path, with `.`/`..` resolved and an absolute-form target
   * reduced to its path. `as-sent`: the target up to `?`, unchanged, for an API whose paths each name one
   * resource and nothing else.
   */
  paths?: 'resolved' | 'as-sent'
  /** Whether a GET route also answers HEAD (true unless said otherwise). */
  headAsGet?: boolean
  headersTimeoutMs?: number
  /** Unset: node's default. */
  requestTimeoutMs?: number
  /** Counts every answer as `http_requests_total` by status (the method's too, for the routes' mix). */
  metrics?: Metrics
  log: Logger
}

export function serveRoutes(params: ServeRoutesParams): Promise<ListeningServer> {
  const { host, port, portSetting, routes, notFound, log, paths = 'resolved', headAsGet = true } = params
  const methodNotAllowed = params.methodNotAllowed ?? answerMethodNotAllowed
  const requests = params.metrics?.counter('http_requests_total', 'HTTP requests answered, by method and status')
  const durations = params.metrics?.histogram('http_request_duration_seconds', 'Seconds from a request to its answer, by method', DURATION_BUCKETS_SECONDS)
  const server = createServer((req, res) => {
    const started = performance.now()
    // On close: an event stream is counted when it ends, and a request the client gave up on too.
    if (requests) res.once('close', () => {
      requests(1, { method: req.method ?? '', status: String(res.statusCode) })
      // An event stream's duration is its subscriber's stay, not a latency.
      if (!String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) durations!((performance.now() - started) / 1000, { method: req.method ?? '' })
    })
    const path = paths === 'as-sent' ? pathAsSent(req) : resolvedPath(req)
    const matching = routes.filter((route) => route.path.test(path))
    const route = matching.find((r) => r.method === req.method || (headAsGet && r.method === 'GET' && req.method === 'HEAD'))
    const request = { req, res, path, params: route ? route.path.exec(path)!.slice(1) : [] }
    if (matching.length === 0) return notFound(request)
    if (!route) return methodNotAllowed(request, [...new Set(matching.map((r) => r.method))].join(', '))
    Promise.resolve()
      .then(() => route.handle(request))
      .catch((error: unknown) => {
        log.error('request failed', { method: req.method, path, error })
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('something went wrong; it has been logged\n')
        else res.end()
      })
  })
  server.headersTimeout = params.headersTimeoutMs ?? 10_000
  if (params.requestTimeoutMs !== undefined) server.requestTimeout = params.requestTimeoutMs
  return listenNodeHttp(server, { host, port, portSetting })
}

const pathAsSent = (req: IncomingMessage) => (req.url ?? '/').split('?')[0]!

/** A target URL cannot parse (`http://[`) names no route: the path as sent then reaches `notFound`. */
function resolvedPath(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname
  } catch {
    return pathAsSent(req)
  }
}

function answerMethodNotAllowed({ res }: RouteRequest, allow: string): void {
  res.writeHead(405, { allow, 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n')
}
