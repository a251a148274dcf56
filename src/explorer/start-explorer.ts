/**
 * Composes the explorer: store (restored from a snapshot when DATA_DIR has none and SNAPSHOT_FROM names
 * one) → indexer → query executor → uWebSockets.js server. Shared services (logger, metrics) are created
 * here and handed to each part.
 */
import { mkdirSync } from 'node:fs'
import uWS from 'uWebSockets.js'
import packageJson from '../../package.json' with { type: 'json' }
import type { ExplorerOptions } from '../config/index.js'
import { endpointsOf } from '../chain/index.js'
import { createChainSource, type ChainSource } from './indexer/index.js'
import { Indexer } from './indexer/index.js'
import { createRangePool, type RangePool } from './indexer/index.js'
import { createLogger, type Services } from '../platform/observability/index.js'
import { Metrics } from '../platform/observability/index.js'
import { createQueryExecutor } from './query/index.js'
import { claimIdentity, claimLayout } from './store/index.js'
import { openStore, type Store } from './store/index.js'
import { guardRoutes, indexerReady, listenApp, loadConfigureApp, registerApi } from './api/index.js'
import { perThreadOptions, ServerThreads } from './server-threads/index.js'
import { restoreSnapshot } from './snapshot/index.js'

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
  /**
   * A module whose `configureApp(app)` adds routes before the 404/405 fallbacks, in every server thread
   * (the benchmarks serve a static page of a given size).
   */
  appModule?: string
}

// Imported rather than read from a path, so that a build (scripts/build.ts) carries it inside the bundle.
const VERSION = packageJson.version

export async function startExplorer(options: ExplorerOptions, services: ExplorerServices = {}): Promise<RunningExplorer> {
  const logger = services.log ?? createLogger(options.logLevel, { service: 'explorer' })
  mkdirSync(options.dataDir, { recursive: true })
  if (options.snapshot) await restoreSnapshot({ source: options.snapshot, dataDir: options.dataDir, identity: options, log: logger })
  const store = openStore({ path: options.dataDir })
  try {
    claimLayout(store, options.dataDir)
    await claimIdentity(store, { chainId: options.chainId, contract: options.contract })
  } catch (error) {
    await store.close()
    throw error
  }
  const metrics = services.metrics ?? new Metrics()
  const executor = createQueryExecutor({ store, dataDir: options.dataDir, workers: options.queryWorkers, inline: options.queryInline, maxQueue: options.queryMaxQueue })
  const configureApp = await loadConfigureApp(services.appModule)

  // Before anything takes the store's write counts: with threads they move to shared memory.
  const serving = perThreadOptions(options)
  const threads = options.serverThreads > 1 ? new ServerThreads({ options: serving, store, metrics, logger, status: () => indexer.status(), appModule: services.appModule }) : undefined
  let stopped = false
  const app = guardRoutes(uWS.App(), () => stopped)
  // The hub reads the store's end now, before the indexer can commit anything.
  const api = registerApi(app, { options: serving, store, executor, indexer: { status: () => indexer.status() }, metrics, logger, version: VERSION, configureApp, connections: threads?.connections, exports: threads?.exports })
  // The pool reaches the node itself; an injected source lives on this thread, and so does its indexing.
  const ranges: RangePool | undefined =
    services.source || options.indexWorkers === 0 ? undefined : createRangePool({ endpoints: endpointsOf(options), chainId: options.chainId, contract: options.contract, workers: options.indexWorkers })
  const indexer = new Indexer({
    store,
    source: services.source ?? createChainSource({ ...endpointsOf(options), chainId: options.chainId, contract: options.contract, log: logger }),
    fetchRange: ranges?.fetch,
    startBlock: options.startBlock,
    confirmations: options.confirmations,
    pollIntervalMs: options.pollIntervalMs,
    logger,
    metrics,
    listener: threads ? threads.forward(api.listener) : api.listener,
  })
  // Registered here, on the main thread only: the server threads' values are summed into this registry.
  metrics.collected('ready', '1 while GET /ready answers 200: the indexer within READY_MAX_LAG blocks, its last step without error', () =>
    indexerReady(indexer.status(), options.readyMaxLag) ? 1 : 0,
  )
  const storeStats = () => store.env.getStats() as { mapSize: number; lastPageNumber: number; pageSize: number }
  metrics.collected('store_map_size_bytes', "The LMDB map's size: the most the store can hold", () => storeStats().mapSize)
  metrics.collected('store_used_bytes', "Bytes of the LMDB map in use (its last page's end; freed pages inside are reused)", () => {
    const { lastPageNumber, pageSize } = storeStats()
    return (lastPageNumber + 1) * pageSize
  })

  let listenSocket: uWS.us_listen_socket | undefined
  const stop = async () => {
    stopped = true
    if (listenSocket) uWS.us_listen_socket_close(listenSocket)
    await threads?.close()
    api.live.close()
    await indexer.stop()
    await ranges?.close()
    await executor.close()
    await store.close()
  }
  let port: number
  try {
    listenSocket = await listenApp(app, options.host, options.port, threads !== undefined)
    port = uWS.us_socket_local_port(listenSocket)
    await threads?.start(port)
  } catch (error) {
    // Nothing started is left running: the pools' threads, the store's handle, a listening socket.
    await stop()
    throw error
  }
  indexer.start()
  const url = `http://${options.host}:${port}`
  logger.info('explorer listening', { url, chainId: options.chainId, contract: options.contract, dataDir: options.dataDir })

  return {
    url,
    port,
    store,
    indexer,
    metrics,
    stop,
  }
}
