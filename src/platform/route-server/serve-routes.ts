/**
 * The fastify server of the small HTTP services (the payment pages, the demo store, the CA's admin API),
 * the toolkit the merchant API uses too, rather than uWebSockets.js (the explorer's): a few requests per
 * user, server-sent events held open, bodies read by fastify under a cap per route, and every connection
 * (open event streams included) closed on stop. Handlers write the node response themselves (pages,
 * event streams), so each reply is hijacked. An unknown path gets the caller's `notFound`, a known path
 * with another method a 405 with `Allow` (plain text unless the caller answers it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type HTTPMethods } from 'fastify'
import { ConfigError } from '../../config/index.js'
import { DURATION_BUCKETS_SECONDS, type Logger, type Metrics } from '../observability/index.js'

export interface RouteRequest {
  req: IncomingMessage
  res: ServerResponse
  /** The path the routes were matched against. */
  path: string
  /** The path's parameters, in the order the route's URL names them. */
  params: string[]
  /** The body fastify read (at most the route's `maxBodyBytes`); undefined when none was sent. */
  body: Buffer | undefined
}

export interface Route {
  method: 'GET' | 'POST' | 'OPTIONS'
  /** A fastify URL; a parameter's pattern in parentheses, e.g. `/s/:id(^ch_[0-9a-f]{24}$)`. */
  url: string
  /** The most a body may hold (fastify's `bodyLimit`, default 16 KiB); a longer one goes to `tooLarge`. */
  maxBodyBytes?: number
  /** A body over `maxBodyBytes` (the connection is closed after the answer); 413 without a body unless said. */
  tooLarge?(request: RouteRequest): Promise<void> | void
  /** Run before the body is read: a refusal to write instead of running the route, or undefined. */
  refusal?(request: RouteRequest): (() => void) | undefined
  handle(request: RouteRequest): Promise<void> | void
}

export interface ListeningServer {
  /** `http://host:port` as bound. */
  url: string
  close(): Promise<void>
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
  /** Unset: 300 s, node's own default (fastify's would be none). */
  requestTimeoutMs?: number
  /** Counts every answer as `http_requests_total` by status (the method's too, for the routes' mix). */
  metrics?: Metrics
  log: Logger
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024

/** A form button's route: its body is never read, so one of any size is not a reason to refuse it. */
export const ignoringBody = (route: Route): Route => ({ ...route, tooLarge: route.handle })

/** The route, and the same at its URL with a trailing slash (a pasted link often has one). */
export const withTrailingSlash = (route: Route): Route[] => [route, { ...route, url: `${route.url}/` }]

export async function serveRoutes(params: ServeRoutesParams): Promise<ListeningServer> {
  const { host, port, portSetting, routes, notFound, log, paths = 'resolved', headAsGet = true } = params
  const methodNotAllowed = params.methodNotAllowed ?? answerMethodNotAllowed
  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    exposeHeadRoutes: headAsGet,
    requestTimeout: params.requestTimeoutMs ?? 300_000,
    // node's own default (fastify's is 72 s): an idle kept-alive connection is not held longer than a browser needs.
    keepAliveTimeout: 5_000,
    bodyLimit: DEFAULT_MAX_BODY_BYTES,
    routerOptions: { maxParamLength: 64 * 1024 },
    ...(paths === 'resolved' && { rewriteUrl: (req: IncomingMessage) => resolvedUrl(req.url ?? '/') }),
    // A target whose escapes do not decode names no route.
    frameworkErrors: (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => notFound(hijacked(request, reply, [])),
  })
  app.server.headersTimeout = params.headersTimeoutMs ?? 10_000
  countAnswers(app, params.metrics)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  const byKey = new Map(routes.map((route) => [`${route.method} ${route.url}`, route]))
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      ...(route.refusal && {
        onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
          const refusal = route.refusal!(routeRequest(request, reply, route))
          if (!refusal) return done()
          reply.hijack()
          refusal()
        },
      }),
      handler: (request, reply) => void run(log, hijacked(request, reply, route), route.handle),
    })
  }
  answerOtherMethods(app, routes, headAsGet, (request, reply, allow) => methodNotAllowed(hijacked(request, reply, []), allow))
  app.setNotFoundHandler((request, reply) => notFound(hijacked(request, reply, [])))
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const route = byKey.get(`${request.method} ${request.routeOptions.url ?? ''}`)
    const answer = hijacked(request, reply, route ?? [])
    // Only reading a body fails before a route runs (routes answer their own failures); an unknown path's is still a 404.
    if (!route) return notFound(answer)
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      if (route.tooLarge) return run(log, answer, route.tooLarge)
      answer.res.writeHead(413, { connection: 'close' }).end()
      return
    }
    run(log, answer, () => {
      throw error
    })
  })

  try {
    await app.listen({ host, port })
  } catch (error) {
    await app.close()
    throw new ConfigError(`${portSetting} ${port} on ${host} is not available (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error })
  }
  const { port: bound } = app.server.address() as { port: number }
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`, close: () => app.close() }
}

/** The request as the routes see it. */
function routeRequest(request: FastifyRequest, reply: FastifyReply, route: Route | []): RouteRequest {
  const values = request.params as Record<string, string> | undefined
  const names = Array.isArray(route) ? [] : [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1]!)
  return {
    req: request.raw,
    res: reply.raw,
    path: request.url.split('?')[0]!,
    params: names.map((name) => values?.[name] ?? ''),
    body: Buffer.isBuffer(request.body) ? request.body : undefined,
  }
}

/** The request for an answer written on the node response: fastify is told to leave the reply alone. */
function hijacked(request: FastifyRequest, reply: FastifyReply, route: Route | []): RouteRequest {
  reply.hijack()
  return routeRequest(request, reply, route)
}

/** A route's work; a failure is logged and answered 500 (or the answer begun is ended). */
function run(log: Logger, request: RouteRequest, work: (request: RouteRequest) => Promise<unknown> | unknown): Promise<void> {
  const { req, res, path } = request
  return Promise.resolve()
    .then(() => work(request))
    .then(
      () => undefined,
      (error: unknown) => {
        log.error('request failed', { method: req.method, path, error })
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('something went wrong; it has been logged\n')
        else res.end()
      },
    )
}

/** Every other method on a route's URL answers 405 naming the URL's methods (HEAD too, when GET brings it). */
function answerOtherMethods(app: FastifyInstance, routes: Route[], headAsGet: boolean, answer: (request: FastifyRequest, reply: FastifyReply, allow: string) => void): void {
  const methodsByUrl = new Map<string, string[]>()
  for (const route of routes) methodsByUrl.set(route.url, [...new Set([...(methodsByUrl.get(route.url) ?? []), route.method])])
  for (const [url, methods] of methodsByUrl) {
    const served = headAsGet && methods.includes('GET') ? [...methods, 'HEAD'] : methods
    const others = app.supportedMethods.filter((method) => !served.includes(method)) as HTTPMethods[]
    // Answered on arrival: a body is never read for a 405.
    app.route({
      method: others,
      url,
      onRequest: (request, reply) => answer(request, reply, methods.join(', ')),
      handler: () => undefined,
    })
  }
}

/** `http_requests_total` and durations, counted when the answer closes: an event stream when it ends. */
function countAnswers(app: FastifyInstance, metrics: Metrics | undefined): void {
  if (!metrics) return
  const requests = metrics.counter('http_requests_total', 'HTTP requests answered, by method and status')
  const durations = metrics.histogram('http_request_duration_seconds', 'Seconds from a request to its answer, by method', DURATION_BUCKETS_SECONDS)
  app.addHook('onRequest', (request, reply, done) => {
    const started = performance.now()
    const { raw: req } = request
    reply.raw.once('close', () => {
      requests(1, { method: req.method ?? '', status: String(reply.raw.statusCode) })
      // An event stream's duration is its subscriber's stay, not a latency.
      if (!String(reply.raw.getHeader('content-type') ?? '').startsWith('text/event-stream')) durations((performance.now() - started) / 1000, { method: req.method ?? '' })
    })
    done()
  })
}

/** The path resolved as a browser would (`.`/`..`, an absolute-form target reduced to its path), the query kept. */
function resolvedUrl(target: string): string {
  try {
    const url = new URL(target, 'http://localhost')
    return url.pathname + url.search
  } catch {
    return target
  }
}

function answerMethodNotAllowed({ res }: RouteRequest, allow: string): void {
  res.writeHead(405, { allow, 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n')
}
