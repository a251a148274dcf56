/**
 * The explorer's web page on the API's own server: `GET /` for browsers (asked by the REST root route
 * through `WebFront.serveRoot` when the Accept header prefers HTML) and its assets under `/assets/`,
 * with year-long caching, ETag / 304 and the gzip or brotli encoding the client accepts.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { Metrics } from '../../../platform/observability/index.js'
import { acceptedCoding, etagMatches, problemReply, reply, replyLater, type Reply } from '../../../platform/http/index.js'
import { pageShell, PAGE_HEADERS } from './page-shell.js'
import { prefersHtml } from './prefers-html.js'
import { loadWebAssets } from './web-asset-source.js'
import { ASSET_PREFIX, type WebAsset, type WebAssets } from './web-assets.js'

export interface WebFront {
  /** True when this request to `/` is a browser's; the REST root then leaves it to `serveRoot`. */
  wantsPage(req: HttpRequest): boolean
  serveRoot(res: HttpResponse, req: HttpRequest): void
}

interface LoadedPage {
  shell: WebAsset
  byName: Map<string, WebAsset>
}

// One compilation per process, shared by every explorer it runs (the tests start many).
let loading: Promise<LoadedPage> | undefined
function loadPage(): Promise<LoadedPage> {
  loading ??= loadWebAssets().then(
    (assets: WebAssets) => ({ shell: pageShell(assets), byName: new Map(assets.files.map((file) => [file.name, file])) }),
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

/** The asset in the encoding the request accepts, or a 304 when the client's copy is current. */
function assetReply(asset: WebAsset, acceptEncoding: string, ifNoneMatch: string, headers: Record<string, string>): Reply {
  const common = { etag: asset.etag, vary: 'accept-encoding', ...headers }
  if (etagMatches(ifNoneMatch, asset.etag)) return { status: 304, body: '', contentType: asset.contentType, headers: common }
  const coding = acceptedCoding(acceptEncoding)
  if (!coding) return { status: 200, body: asset.identity, contentType: asset.contentType, headers: common }
  return { status: 200, body: asset[coding], contentType: asset.contentType, headers: { ...common, 'content-encoding': coding } }
}

export function registerWeb(app: TemplatedApp, services: { logger: Logger; metrics: Metrics }): WebFront {
  const requests = services.metrics.counter('http_requests_total', 'HTTP requests answered, by route and status')
  const { logger } = services
  // `pick` runs after an await, so callers read the request's headers first (uWS forbids it later).
  const serve = (route: string, res: HttpResponse, pick: (page: LoadedPage) => Reply) =>
    replyLater(res, logger, async () => {
      const r = pick(await loadPage())
      requests(1, { route, status: String(r.status) })
      return r
    })
  app.get(`${ASSET_PREFIX}*`, (res, req) => {
    const name = req.getUrl().slice(ASSET_PREFIX.length)
    const acceptEncoding = req.getHeader('accept-encoding')
    const ifNoneMatch = req.getHeader('if-none-match')
    serve(ASSET_PREFIX, res, (page) => {
      const asset = page.byName.get(name)
      return asset ? assetReply(asset, acceptEncoding, ifNoneMatch, { 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' }) : problemReply(404, `no asset ${name}`)
    })
  })
  return {
    wantsPage: (req) => prefersHtml(req.getHeader('accept')),
    serveRoot(res, req) {
      const acceptEncoding = req.getHeader('accept-encoding')
      const ifNoneMatch = req.getHeader('if-none-match')
      serve('/ (page)', res, (page) => assetReply(page.shell, acceptEncoding, ifNoneMatch, PAGE_HEADERS))
    },
  }
}
