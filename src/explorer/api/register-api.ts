/**
 * Every route of the explorer on one uWS app, with what answers them: the live hub, the page cache,
 * the key views, the web page and REST, then the fallbacks. The main thread and each server thread
 * (explorer/server-threads) compose their app the same way; what the indexer commits reaches the
 * parts through the returned listener.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { ExplorerOptions } from '../../config/index.js'
import type { IndexerListener, IndexerStatus } from '../indexer/index.js'
import type { Logger, Metrics } from '../../platform/observability/index.js'
import type { SharedConnections } from '../../platform/limits/index.js'
import { DEFAULT_KEY_VIEW_BYTES, KeyViews, TokenCache, type QueryExecutor } from '../query/index.js'
import type { Store } from '../store/index.js'
import { registerLive, type LiveHub } from './live/index.js'
import { HttpValidators } from './rest/http-cache.js'
import { DEFAULT_PAGE_CACHE_BYTES, PageCache } from './rest/page-cache.js'
import { documentedApp } from './rest/documented-app.js'
import { registerFallbacks, registerRest } from './rest/register-rest.js'
import { registerWeb } from './web/register-web.js'

export interface ApiContext {
  options: ExplorerOptions
  store: Store
  executor: QueryExecutor
  indexer: { status(): IndexerStatus }
  metrics: Metrics
  logger: Logger
  version: string
  /** Where the live hub starts publishing (LiveHubOptions.publishedEnd). */
  publishedEnd?: Buffer
  /** Live connections counted across server threads (LiveHubOptions.connections). */
  connections?: SharedConnections
  /** Exports running, counted across server threads (rest/register-export.ts). */
  exports?: SharedConnections
  /** Adds routes before the fallbacks (the benchmarks' static page). */
  configureApp?: (app: TemplatedApp) => void
}

/** The `configureApp(app)` of an app module (ExplorerServices.appModule), loaded by each thread that composes an api. */
export async function loadConfigureApp(appModule: string | undefined): Promise<ApiContext['configureApp']> {
  if (!appModule) return undefined
  // layering: dynamic import — the operator's (or the benchmarks') app module, named in ExplorerServices.appModule
  return ((await import(appModule)) as { configureApp: NonNullable<ApiContext['configureApp']> }).configureApp
}

export interface Api {
  live: LiveHub
  /** The indexer's reports, for the caches first and the live hub last. */
  listener: IndexerListener
}

export function registerApi(app: TemplatedApp, ctx: ApiContext): Api {
  const { store, metrics, logger } = ctx
  const tokens = new TokenCache(store)
  // Every operation goes through the route table; the page's files, the bench's additions and the fallbacks do not.
  const documented = documentedApp(app)
  const live = registerLive(documented.app, { store, tokens, limits: ctx.options.live, metrics, logger, publishedEnd: ctx.publishedEnd, connections: ctx.connections })
  const pages = new PageCache({ store, maxBytes: DEFAULT_PAGE_CACHE_BYTES, metrics })
  const views = new KeyViews({ store, tokens, maxBytes: DEFAULT_KEY_VIEW_BYTES, metrics })
  const validators = new HttpValidators(store, ctx.options.httpCache)
  const web = registerWeb(app, { logger, metrics })
  registerRest(documented.app, { options: ctx.options, store, tokens, executor: ctx.executor, pages, views, validators, indexer: ctx.indexer, metrics, logger, version: ctx.version, web, exports: ctx.exports })
  documented.assertServed()
  ctx.configureApp?.(app)
  registerFallbacks(app)
  // Cached pages and views go first, so that nobody told of a settlement can still be served a page without it.
  const listener: IndexerListener = {
    committed(settlements) {
      validators.committed()
      pages.committed(settlements)
      views.committed(settlements)
      live.committed(settlements)
    },
    removed(settlements) {
      validators.removed()
      pages.removed(settlements)
      views.removed(settlements)
      live.removed(settlements)
    },
  }
  return { live, listener }
}
