/**
 * Composes the explorer: store → indexer → query executor → uWebSockets.js server. Shared services
 * (logger, metrics) are created here and handed to each part.
 */
import { mkdirSync } from 'node:fs'
import uWS from 'uWebSockets.js'
import packageJson from '../../package.json' with { type: 'json' }
import type { ExplorerOptions } from '../config/index.js'
import { createChainSource, type ChainSource } from './indexer/index.js'
import { Indexer, type IndexerListener } from './indexer/index.js'
import { createRangePool, type RangePool } from './indexer/index.js'
import { createLogger, type Services } from '../platform/observability/index.js'
import { Metrics } from '../platform/observability/index.js'
import { DEFAULT_KEY_VIEW_BYTES, KeyViews } from './query/index.js'
import { createQueryExecutor } from './query/index.js'
import { TokenCache } from './query/index.js'
import { claimIdentity, claimLayout } from './store/index.js'
import { openStore, type Store } from './store/index.js'
import { guardRoutes } from './api/index.js'
import { registerLive, type LiveHub } from './api/index.js'
import { DEFAULT_PAGE_CACHE_BYTES, PageCache } from './api/index.js'
import { registerFallbacks, registerRest } from './api/index.js'
import { registerWeb } from './api/index.js'

export interface RunningExplorer {
  url: string
  port: number
  store: Store
  indexer: Indexer
  metrics: Metrics
  stop(): Promise<void>
}

export interface ExplorerServices extends Partial<Services> {
  /** Replaces the RPC source (benchmarks feed a synthetic one). */
  source?: ChainSource
  /** Adds routes before the 404/405 fallbacks (the benchmarks serve a static page of a given size). */
  configureApp?: (app: uWS.TemplatedApp) => void
}

// Imported rather than read from a path, so that a build (scripts/build.ts) carries it inside the bundle.
const VERSION = packageJson.version

export async function startExplorer(options: ExplorerOptions, services: ExplorerServices = {}): Promise<RunningExplorer> {
  const logger = services.log ?? createLogger(options.logLevel, { service: 'explorer' })
  mkdirSync(options.dataDir, { recursive: true })
  const store = openStore({ path: options.dataDir })
  try {
    claimLayout(store, options.dataDir)
    await claimIdentity(store, { chainId: options.chainId, contract: options.contract })
  } catch (error) {
    await store.close()
    throw error
  }
  const metrics = services.metrics ?? new Metrics()
  const tokens = new TokenCache(store)
  const executor = createQueryExecutor({ store, dataDir: options.dataDir, workers: options.queryWorkers, inline: options.queryInline })

  let stopped = false
  const app = guardRoutes(uWS.App(), () => stopped)
  // The hub reads the store's end now, before the indexer can commit anything.
  const live: LiveHub = registerLive(app, { store, tokens, limits: options.live, metrics, logger })
  const pages = new PageCache({ store, maxBytes: DEFAULT_PAGE_CACHE_BYTES, metrics })
  const views = new KeyViews({ store, tokens, maxBytes: DEFAULT_KEY_VIEW_BYTES, metrics })
  // Cached pages and views go first, so that nobody told of a settlement can still be served a page without it.
  const listener: IndexerListener = {
    committed(settlements) {
      pages.committed(settlements)
      views.committed(settlements)
      live.committed(settlements)
    },
    removed(settlements) {
      pages.removed(settlements)
      views.removed(settlements)
      live.removed(settlements)
    },
  }
  // The pool reaches the node itself; an injected source lives on this thread, and so does its indexing.
  const ranges: RangePool | undefined =
    services.source || options.indexWorkers === 0 ? undefined : createRangePool({ rpcUrl: options.rpcUrl, contract: options.contract, workers: options.indexWorkers })
  const indexer = new Indexer({
    store,
    source: services.source ?? createChainSource({ rpcUrl: options.rpcUrl, contract: options.contract }),
    fetchRange: ranges?.fetch,
    startBlock: options.startBlock,
    confirmations: options.confirmations,
    pollIntervalMs: options.pollIntervalMs,
    logger,
    metrics,
    listener,
  })

  const web = registerWeb(app, { logger, metrics })
  registerRest(app, { options, store, tokens, executor, pages, views, indexer, metrics, logger, version: VERSION, web })
  services.configureApp?.(app)
  registerFallbacks(app)

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(options.host, options.port, (socket) => (socket ? resolve(socket) : reject(new Error(`EXPLORER_PORT ${options.port} on ${options.host} is not available`))))
  })
  const port = uWS.us_socket_local_port(listenSocket)
  indexer.start()
  const url = `http://${options.host}:${port}`
  logger.info('explorer listening', { url, chainId: options.chainId, contract: options.contract, dataDir: options.dataDir })

  return {
    url,
    port,
    store,
    indexer,
    metrics,
    async stop() {
      stopped = true
      uWS.us_listen_socket_close(listenSocket)
      live.close()
      await indexer.stop()
      await ranges?.close()
      await executor.close()
      await store.close()
    },
  }
}
