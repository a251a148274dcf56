/**
 * Composes the data service: checks the node serves CHAIN_ID, reads the directory from the chain once,
 * keeps it current on admin events, and serves it from memory over uWebSockets.js.
 */
import uWS from 'uWebSockets.js'
import { watchDirectory } from '../../chain/index.js'
import type { Directory } from '../../chain/index.js'
import { checkChainId, createChainClient, endpointsOf } from '../../chain/index.js'
import type { DataServiceOptions } from '../../config/index.js'
import { listenUws } from '../../platform/http/index.js'
import { createLogger, serviceMetrics, type Logger, type Metrics } from '../../platform/observability/index.js'
import { registerRoutes } from './register-routes.js'
import { renderDirectory, type RenderedDirectory } from './render-directory.js'

export interface RunningDataService {
  url: string
  port: number
  stop(): Promise<void>
}

export interface DataServiceServices {
  log?: Logger
  /** Served at `/metrics`; a `data_service_` registry with the process gauges unless one is handed in. */
  metrics?: Metrics
}

export async function startDataService(options: DataServiceOptions, services: DataServiceServices = {}): Promise<RunningDataService> {
  const logger = services.log ?? createLogger(options.logLevel, { service: 'data-service' })
  const metrics = services.metrics ?? serviceMetrics('data_service')
  metrics.collected('directory_block_number', 'The block the directory was last read at', () => Number(watch.current().blockNumber))
  // A wrong RPC_URL or CHAIN_ID would announce another chain's contract: refuse to start.
  const publicClient = createChainClient({ ...endpointsOf(options), chainId: options.chainId, pollingIntervalMs: options.pollIntervalMs, log: logger })
  await checkChainId(publicClient, options.chainId)

  let rendered: RenderedDirectory
  // A failing node fails every poll: one warning when it starts, one line when it ends.
  let failing = false
  const watch = await watchDirectory({
    publicClient,
    settlementContract: options.contract,
    fromBlock: BigInt(options.startBlock),
    pollIntervalMs: options.pollIntervalMs,
    onChange(directory) {
      rendered = renderDirectory(directory, options.urls)
      logger.info('directory changed', summary(directory))
    },
    onError(error) {
      const fields = { error }
      if (failing) return logger.debug('directory refresh failed again', fields)
      failing = true
      logger.warn('directory refresh failed; serving the last one read until it succeeds', fields)
    },
    onRecover() {
      failing = false
      logger.info('directory refresh recovered')
    },
  })
  rendered = renderDirectory(watch.current(), options.urls)

  const app = uWS.App()
  registerRoutes(app, {
    rendered: () => rendered,
    health() {
      const error = watch.lastError()
      return {
        status: 'ok',
        chainId: options.chainId,
        blockNumber: Number(watch.current().blockNumber),
        ...(error && { lastError: error.message.split('\n')[0] }),
      }
    },
    // Serving a directory the node can no longer refresh could announce fees or tokens changed since.
    ready() {
      const error = watch.lastError()
      if (error) return `the node at RPC_URL fails (${error.message.split('\n')[0]}); the directory was last read at block ${watch.current().blockNumber}`
    },
    metrics,
    log: logger,
  })
  let listenSocket: uWS.us_listen_socket
  try {
    listenSocket = await listenUws(app, { host: options.host, port: options.port, portSetting: 'DATA_SERVICE_PORT' })
  } catch (error) {
    watch.stop()
    throw error
  }
  const port = uWS.us_socket_local_port(listenSocket)
  const url = `http://${options.host}:${port}`
  logger.info('data service listening', { url, ...summary(watch.current()) })

  return {
    url,
    port,
    async stop() {
      watch.stop()
      uWS.us_listen_socket_close(listenSocket)
      logger.info('data service stopped')
    },
  }
}

function summary(directory: Directory) {
  return {
    chainId: directory.chainId,
    settlementContract: directory.settlementContract,
    blockNumber: directory.blockNumber,
    baseFeeAmount: directory.baseFeeAmount,
    maxAcquiringFee: directory.maxAcquiringFee,
    feeRecipient: directory.feeRecipient,
    tokens: directory.tokens.map((t) => t.symbol),
  }
}
