/**
 * The admin API's HTTP server, on fastify (platform/route-server) rather than uWebSockets.js (which
 * the public services use): this is an operator API on a loopback address answering a few requests a
 * day, most of them with a body; fastify reads a body under a size cap, closes the connection when one is
 * refused half-read, and closes every connection on stop. Throughput buys nothing here. Every answer,
 * refusals included, is an `application/problem+json` or a route's reply; the bearer token is checked
 * before a body is read, and paths are matched as sent: each names one resource.
 */
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { errorReply, problemReply, sendReply, type Reply } from '../../../platform/http/index.js'
import { type RouteRequest } from '../../../platform/route-server/index.js'
import { serveRoutes, type ListeningServer } from '../../../platform/route-server/index.js'
import { bearerMatches } from '../admin-token.js'
import { MAX_BODY_BYTES, parseJsonBody } from './json-body.js'

export interface AdminRoute {
  method: 'GET' | 'POST'
  /** A fastify URL; its parameters, decoded, are handed to `handle` in order. */
  url: string
  /** Public routes (the CRL, health) need no token. */
  public?: boolean
  body?: 'required' | 'optional'
  handle(params: string[], body: unknown): Promise<Reply>
}

export type AdminServer = ListeningServer

export interface ServeParams {
  host: string
  port: number
  token: string
  routes: AdminRoute[]
  /** Counts every answer by method and status. */
  metrics: Metrics
  log: Logger
}

export function serveAdminApi({ host, port, token, routes, metrics, log }: ServeParams): Promise<AdminServer> {
  const respond = ({ req, res }: RouteRequest, answer: () => Promise<Reply>): Promise<void> =>
    answer()
      .catch((error: unknown) => errorReply(error, log))
      .then((reply) => {
        log.debug('admin request', { method: req.method, path: req.url, status: reply.status })
        // A body refused before it was read to the end: close rather than read the rest to keep the connection.
        sendReply(res, reply, req.complete ? {} : { connection: 'close' })
      })

  const unauthorized = (route: AdminRoute, request: RouteRequest) => {
    const { authorization } = request.req.headers
    if (route.public || bearerMatches(authorization, token)) return undefined
    const detail = authorization ? 'the bearer token is wrong' : 'an Authorization: Bearer <CA_ADMIN_TOKEN> header is required'
    return () => void respond(request, async () => problemReply(401, detail, undefined, { 'www-authenticate': 'Bearer realm="certificate authority"' }))
  }

  return serveRoutes({
    host,
    port,
    portSetting: 'CA_PORT',
    routes: routes.map((route) => ({
      method: route.method,
      url: route.url,
      maxBodyBytes: MAX_BODY_BYTES,
      refusal: (request) => unauthorized(route, request),
      tooLarge: (request) => respond(request, async () => problemReply(413, `the body is larger than ${MAX_BODY_BYTES} bytes`)),
      handle: (request) => respond(request, async () => route.handle(request.params, route.body ? parseJsonBody(request, route.body === 'required') : undefined)),
    })),
    notFound: (request) => void respond(request, async () => problemReply(404, `no route ${request.path.slice(0, 200)}`)),
    methodNotAllowed: (request, allow) =>
      void respond(request, async () => problemReply(405, `${request.req.method ?? ''} is not allowed on ${request.path}; use ${allow}`, undefined, { allow })),
    paths: 'as-sent',
    headAsGet: false,
    headersTimeoutMs: 5_000,
    requestTimeoutMs: 10_000,
    metrics,
    log,
  })
}
