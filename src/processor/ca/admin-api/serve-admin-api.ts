/**
 * The admin API's HTTP server. node:http rather than uWebSockets.js (which the public services use):
 * this is an operator API on a loopback address answering a few requests a day, most of them with a
 * body, and node:http streams a body with a size cap in a few lines, keeps a connection consistent when
 * a body is refused half-read, and closes every connection on stop. Throughput buys nothing here.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Logger } from '../../../platform/observability/index.js'
import { errorReply, JSON_TYPE, problemReply, type Reply } from '../../../platform/http/index.js'
import { listenNodeHttp, type ListeningServer } from '../../../platform/http/index.js'
import { bearerMatches } from '../admin-token.js'
import { readJsonBody } from './read-request.js'

export interface Route {
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
  routes: Route[]
  log: Logger
}

export async function serveAdminApi({ host, port, token, routes, log }: ServeParams): Promise<AdminServer> {
  const answer = async (req: IncomingMessage): Promise<Reply> => {
    const path = (req.url ?? '/').split('?')[0]!
    const matching = routes.filter((route) => route.path.test(path))
    if (matching.length === 0) return problemReply(404, `no route ${path.slice(0, 200)}`)
    const route = matching.find((r) => r.method === req.method)
    const allow = matching.map((r) => r.method).join(', ')
    if (!route) return problemReply(405, `${req.method ?? ''} is not allowed on ${path}; use ${allow}`, undefined, { allow })
    if (!route.public && !bearerMatches(req.headers.authorization, token)) {
      const detail = req.headers.authorization ? 'the bearer token is wrong' : 'an Authorization: Bearer <CA_ADMIN_TOKEN> header is required'
      return problemReply(401, detail, undefined, { 'www-authenticate': 'Bearer realm="certificate authority"' })
    }
    const body = route.body ? await readJsonBody(req, route.body === 'required') : undefined
    return route.handle(pathParams(route.path, path), body)
  }

  const server = createServer((req, res) => {
    answer(req)
      .catch((error: unknown) => errorReply(error, log))
      .then((reply) => {
        log.debug('admin request', { method: req.method, path: req.url, status: reply.status })
        send(req, res, reply)
      })
  })
  server.requestTimeout = 10_000
  server.headersTimeout = 5_000
  return listenNodeHttp(server, { host, port, portSetting: 'CA_PORT' })
}

function pathParams(pattern: RegExp, path: string): string[] {
  return pattern.exec(path)!.slice(1).map((param) => {
    try {
      return decodeURIComponent(param)
    } catch {
      return param
    }
  })
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { 'content-type': reply.contentType ?? JSON_TYPE, 'cache-control': 'no-store', ...reply.headers }
  // A body refused before it was read to the end: close rather than read the rest to keep the connection.
  if (!req.complete) headers.connection = 'close'
  res.writeHead(reply.status, headers).end(reply.body)
}
