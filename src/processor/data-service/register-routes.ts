/**
 * The data service's HTTP surface on a uWebSockets.js app: `GET /config`, `/tokens` (cacheable: ETag,
 * If-None-Match → 304, a short max-age because admin changes must show), `/health`, `/ready` and
 * `/metrics` (never cached), CORS open to every origin, and problem+json for unknown routes (404) and
 * other methods (405). Every answer is counted by route and status.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import type { Logger, Metrics } from '../../platform/observability/index.js'
import { json, metricsReply, problemReply, readyReply, reply, replyLater, type ReadinessCheck, type Reply } from '../../platform/http/index.js'
import type { RenderedBody, RenderedDirectory } from './render-directory.js'

export interface DataServiceRoutes {
  rendered(): RenderedDirectory
  health(): Record<string, unknown>
  ready: ReadinessCheck
  metrics: Metrics
  log: Logger
}

/** Seconds a client or proxy may reuse a body without asking again. */
export const MAX_AGE_SECONDS = 5

const ROUTES = ['GET /config', 'GET /tokens', 'GET /health', 'GET /ready', 'GET /metrics']
const ALLOW = 'GET, OPTIONS'

export function registerRoutes(app: TemplatedApp, routes: DataServiceRoutes): void {
  const requests = routes.metrics.counter('http_requests_total', 'HTTP requests answered, by route and status')
  /** `route`: the label, the route's path or `other` for the fallbacks (unknown paths must not make label sets). */
  const counted = (route: string, r: Reply) => {
    requests(1, { route, status: String(r.status) })
    return r
  }
  const answer = (route: string, res: HttpResponse, r: Reply) => reply(res, counted(route, r))
  const cacheable = (route: string, select: (r: RenderedDirectory) => RenderedBody) => (res: HttpResponse, req: HttpRequest) => {
    const { body, etag } = select(routes.rendered())
    // Cross-origin scripts see only safelisted response headers unless the ETag is exposed.
    const headers = { etag, 'cache-control': `public, max-age=${MAX_AGE_SECONDS}`, 'access-control-expose-headers': 'ETag' }
    const fresh = matchesEtag(req.getHeader('if-none-match'), etag)
    answer(route, res, fresh ? { status: 304, body: '', headers } : { ...json(body), headers })
  }
  app.get('/config', cacheable('/config', (r) => r.config))
  app.get('/tokens', cacheable('/tokens', (r) => r.tokens))
  app.get('/health', (res) => answer('/health', res, { ...json(JSON.stringify(routes.health())), headers: { 'cache-control': 'no-store' } }))
  app.get('/ready', (res) => replyLater(res, routes.log, async () => counted('/ready', await readyReply(routes.ready))))
  app.get('/metrics', (res) => answer('/metrics', res, metricsReply(routes.metrics)))
  app.options('/*', (res) => answer('other', res, preflight()))
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase()
    if (method !== 'GET') return answer('other', res, problemReply(405, `${method} is not allowed; the data service is read-only (${ALLOW})`, undefined, { allow: ALLOW }))
    answer('other', res, problemReply(404, `no route ${req.getUrl()}; the data service serves ${ROUTES.join(', ')}`))
  })
}

function preflight(): Reply {
  const headers = { allow: ALLOW, 'access-control-allow-methods': ALLOW, 'access-control-allow-headers': 'if-none-match, content-type', 'access-control-max-age': '86400' }
  return { status: 204, body: '', headers }
}

/** RFC 9110 §13.1.2: a list of entity tags or `*`, compared weakly (a `W/` prefix does not matter). */
function matchesEtag(header: string, etag: string): boolean {
  if (header === '') return false
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag.replace(/^W\//, '') === etag
  })
}
