/**
 * The admin API's HTTP server, on the node:http router of `platform/http` rather than uWebSockets.js
 * (which the public services use): this is an operator API on a loopback address answering a few
 * requests a day, most of them with a body, and node:http streams a body with a size cap in a few lines,
 * keeps a connection consistent when a body is refused half-read, and closes every connection on stop.
 * Throughput buys nothing here. Every answer, refusals included, is an `application/problem+json` or a
 * route's reply, and paths are matched as sent: each names one resource.
 */
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { errorReply, problemReply, sendReply, type Reply, type RouteRequest } from '../../../platform/http/index.js'
import { serveRoutes, type ListeningServer } from '../../../platform/http/index.js'
import { bearerMatches } from '../admin-token.js'
import { readJsonBody } from './read-json-body.js'

export interface AdminRoute {
  method: 'GET' | 'POST'
  /** Anchored; its groups are the path parameters. */
  path: RegExp
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

  const answerRoute = async (route: AdminRoute, { req, params }: RouteRequest): Promise<Reply> => {
    if (!route.public && !bearerMatches(req.headers.authorization, token)) {
      const detail = req.headers.authorization ? 'the bearer token is wrong' : 'an Authorization: Bearer <CA_ADMIN_TOKEN> header is required'
      return problemReply(401, detail, undefined, { 'www-authenticate': 'Bearer realm="certificate authority"' })
    }
    const body = route.body ? await readJsonBody(req, route.body === 'required') : undefined
    return route.handle(params.map(decodeParam), body)
  }

  return serveRoutes({
    host,
    port,
    portSetting: 'CA_PORT',
    routes: routes.map((route) => ({ method: route.method, path: route.path, handle: (request) => respond(request, () => answerRoute(route, request)) })),
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

function decodeParam(param: string): string {
  try {
    return decodeURIComponent(param)
  } catch {
    return param
  }
}
