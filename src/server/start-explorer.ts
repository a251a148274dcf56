/**
 * Composes the explorer: store → indexer → query executor → uWebSockets.js server. Shared services
 * (logger, metrics) are created here and handed to each part.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import uWS from 'uWebSockets.js'
import type { ExplorerOptions } from '../config/explorer-options.js'
import { createChainSource, type ChainSource } from '../indexer/chain-source.js'
import { Indexer, type IndexerListener } from '../indexer/indexer.js'
import { createLogger, type Logger } from '../observability/logger.js'
import { Metrics } from '../observability/metrics.js'
import { createQueryExecutor } from '../query/query-executor.js'
import { TokenCache } from '../query/token-cache.js'
import { claimIdentity } from '../store/meta.js'
import { openStore, type Store } from '../store/open-store.js'
import { guardRoutes } from './guard-routes.js'
import { registerLive, type LiveHub } from './live/index.js'
import { registerFallbacks, registerRest } from './rest/register-rest.js'

export interface RunningExplorer {
  url: string
  port: number
  store: Store
  indexer: Indexer
  metrics: Metrics
  stop(): Promise<void>
}

export interface ExplorerServices {
  logger?: Logger
  /** Replaces the RPC source (benchmarks feed a synthetic one). */
  source?: ChainSource
  /** Adds routes before the 404/405 fallbacks (the benchmarks serve a static page of a given size). */
  configureApp?: (app: uWS.TemplatedApp) => void
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

export async function startExplorer(options: ExplorerOptions, services: ExplorerServices = {}): Promise<RunningExplorer> {
  const logger = services.logger ?? createLogger(options.logLevel, { service: 'explorer' })
  mkdirSync(options.dataDir, { recursive: true })
  const store = openStore({ path: options.dataDir })
  await claimIdentity(store, { chainId: options.chainId, contract: options.contract })
  const metrics = new Metrics()
  const tokens = new TokenCache(store)
  const executor = createQueryExecutor({ store, dataDir: options.dataDir, workers: options.queryWorkers })

  let stopped = false
  const app = guardRoutes(uWS.App(), () => stopped)
  // The hub reads the store's end now, before the indexer can commit anything.
  const live: LiveHub = registerLive(app, { store, tokens, limits: options.live, metrics, logger })
  const listener: IndexerListener = live
  const indexer = new Indexer({
    store,
    source: services.source ?? createChainSource({ rpcUrl: options.rpcUrl, contract: options.contract }),
    startBlock: options.startBlock,
    confirmations: options.confirmations,
    pollIntervalMs: options.pollIntervalMs,
    logger,
    metrics,
    listener,
  })

  registerRest(app, { options, store, tokens, executor, indexer, metrics, logger, version: VERSION })
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
      await executor.close()
      await store.close()
    },
  }
}
