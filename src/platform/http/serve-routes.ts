/**
 * The HTTP server of the payment pages and the demo store, on node:http rather than uWebSockets.js (the
 * explorer's): a few requests per payer, server-sent events held open per page, and form bodies read
 * under a cap — node:http does each in a few lines and closes every connection (open event streams
 * included) on stop. Routes are matched in order; an unknown path gets the caller's 404, a known path
 * with another method a 405 with `Allow`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Logger } from '../observability/index.js'
import { listenNodeHttp, type ListeningServer } from './listen-node-http.js'

export interface PageRequest {
  req: IncomingMessage
  res: ServerResponse
  /** The path's groups (routes match ids with strict patterns, so nothing needs decoding). */
  params: string[]
  url: URL
}

export interface PageRoute {
  method: 'GET' | 'POST' | 'OPTIONS'
  /** Anchored; its groups are the path parameters. */
  path: RegExp
  handle(request: PageRequest): Promise<void> | void
}

export interface ServePagesParams {
  host: string
  port: number
  /** The setting named when the port is taken, e.g. WIDGET_PORT. */
  portSetting: string
  routes: PageRoute[]
  notFound(request: PageRequest): void
  log: Logger
}

export function servePages({ host, port, portSetting, routes, notFound, log }: ServePagesParams): Promise<ListeningServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const matching = routes.filter((route) => route.path.test(url.pathname))
    const route = matching.find((r) => r.method === req.method || (r.method === 'GET' && req.method === 'HEAD'))
    const request = { req, res, url, params: route ? route.path.exec(url.pathname)!.slice(1) : [] }
    if (matching.length === 0) return notFound(request)
    if (!route) {
      res.writeHead(405, { allow: [...new Set(matching.map((r) => r.method))].join(', '), 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n')
      return
    }
    Promise.resolve()
      .then(() => route.handle(request))
      .catch((error: unknown) => {
        log.error('request failed', { method: req.method, path: url.pathname, error: error instanceof Error ? error.stack : String(error) })
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('something went wrong; it has been logged\n')
        else res.end()
      })
  })
  server.headersTimeout = 10_000
  return listenNodeHttp(server, { host, port, portSetting })
}
