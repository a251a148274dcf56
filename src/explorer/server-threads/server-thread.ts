/**
 * A server thread (server-threads.ts): the explorer's routes on the shared port, answered from this
 * thread's own read handle, caches and live hub, kept in step by the main thread's reports.
 */
import { parentPort, workerData } from 'node:worker_threads'
import uWS from 'uWebSockets.js'
import packageJson from '../../../package.json' with { type: 'json' }
import { createLogger, Metrics } from '../../platform/observability/index.js'
import { exportCounts, guardRoutes, listenApp, loadConfigureApp, registerApi, type Api } from '../api/index.js'
import { createQueryExecutor, storedEnd } from '../query/index.js'
import { followWriteCounts, openStore } from '../store/index.js'
import { SharedConnections } from '../../platform/limits/index.js'
import type { FromThread, ServerThreadData, ToThread } from './thread-messages.js'

/** This thread's counts go to the main thread; `/metrics` answers with the main thread's merge of all. */
class RelayedMetrics extends Metrics {
  merged = ''
  override render(): string {
    return this.merged
  }
}

const data = workerData as ServerThreadData
const { options } = data
const port = parentPort!
const send = (message: FromThread) => port.postMessage(message)
const logger = createLogger(options.logLevel, { service: 'explorer', thread: data.thread })
const metrics = new RelayedMetrics()
metrics.merged = data.metrics
const store = openStore({ path: options.dataDir })
const executor = createQueryExecutor({ store, dataDir: options.dataDir, workers: options.queryWorkers, inline: options.queryInline, maxQueue: options.queryMaxQueue })
let status = data.status
let applied = 0
let publishedEnd: Buffer | undefined
// What this thread starts from, read while no write is in flight; reports up to `applied` are already in it.
applied = followWriteCounts(store, data.writes, () => applied, () => (publishedEnd = storedEnd(store)))

const connections = new SharedConnections(data.connections, options.live.maxConnections, options.live.maxConnectionsPerAddress)
const exports = exportCounts(options.exports, data.exports)
let stopped = false
const app = guardRoutes(uWS.App(), () => stopped)
const configureApp = await loadConfigureApp(data.appModule)
const api: Api = registerApi(app, { options, store, executor, indexer: { status: () => status }, metrics, logger, version: packageJson.version, publishedEnd, configureApp, connections, exports })

port.on('message', (message: ToThread) => {
  if (message.type === 'committed' || message.type === 'removed') {
    status = message.status
    if (message.stamp <= applied) return
    api.listener[message.type](message.settlements)
    applied = message.stamp
  } else if (message.type === 'exchange') {
    if (message.status) status = message.status
    metrics.merged = message.metrics
    send({ type: 'metrics', snapshot: metrics.snapshot() })
  } else if (message.type === 'stop') void stop()
})

// The main thread listens first: the port is known and shared.
const listenSocket = await listenApp(app, options.host, options.port, true)
send({ type: 'listening' })

async function stop(): Promise<void> {
  stopped = true
  uWS.us_listen_socket_close(listenSocket)
  api.live.close()
  await executor.close()
  await store.close()
  // What is left holding the thread are its clients' kept-alive connections (server-threads.ts).
  port.close()
}
