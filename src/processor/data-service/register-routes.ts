/**
 * The data service's HTTP surface on a uWebSockets.js app: `GET /config`, `/tokens` (cacheable: ETag,
 * If-None-Match → 304, a short max-age because admin changes must show), `/health` (never cached),
 * CORS open to every origin, and problem+json for unknown routes (404) and other methods (405).
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import { json, problemReply, reply, type Reply } from '../../platform/http/index.js'
import type { RenderedBody, RenderedDirectory } from './render-directory.js'

export interface DataServiceRoutes {
  rendered(): RenderedDirectory
  health(): Record<string, unknown>
}

/** Seconds a client or proxy may reuse a body without asking again. */
export const MAX_AGE_SECONDS = 5

const ROUTES = ['GET /config', 'GET /tokens', 'GET /health']
const ALLOW = 'GET, OPTIONS'

export function registerRoutes(app: TemplatedApp, routes: DataServiceRoutes): void {
  const cacheable = (select: (r: RenderedDirectory) => RenderedBody) => (res: HttpResponse, req: HttpRequest) => {
    const { body, etag } = select(routes.rendered())
    // Cross-origin scripts see only safelisted response headers unless the ETag is exposed.
    const headers = { etag, 'cache-control': `public, max-age=${MAX_AGE_SECONDS}`, 'access-control-expose-headers': 'ETag' }
    const fresh = matchesEtag(req.getHeader('if-none-match'), etag)
    reply(res, fresh ? { status: 304, body: '', headers } : { ...json(body), headers })
  }
  app.get('/config', cacheable((r) => r.config))
  app.get('/tokens', cacheable((r) => r.tokens))
  app.get('/health', (res) => reply(res, { ...json(JSON.stringify(routes.health())), headers: { 'cache-control': 'no-store' } }))
  app.options('/*', (res) => reply(res, preflight()))
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase()
    if (method !== 'GET') return reply(res, problemReply(405, `${method} is not allowed; the data service is read-only (${ALLOW})`, undefined, { allow: ALLOW }))
    reply(res, problemReply(404, `no route ${req.getUrl()}; the data service serves ${ROUTES.join(', ')}`))
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
