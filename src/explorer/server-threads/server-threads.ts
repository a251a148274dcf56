/**
 * The main thread's side of SERVER_THREADS: threads that serve every route on the explorer's port
 * beside the main thread (the kernel spreads new connections over the listening sockets, SO_REUSEPORT),
 * so that answering and fan-out grow with cores instead of stopping at one uWS thread (bench/RESULTS.md).
 *
 * The main thread still indexes alone. Each server thread reads the store through its own handle and
 * keeps its own caches and live hub, and is sent, in order, every report the indexer gives the main
 * thread's parts, stamped with the writes settled (store/settlement-writes.ts): a thread's caches stand
 * aside from a write's start until it has applied the write's report, as the main thread's do, so a
 * page is never older than what a live client anywhere has been told. Each thread is also sent the
 * indexer's status (`/ready`) as it changes, and the merged metrics; each sends its own back.
 */
import { Worker } from 'node:worker_threads'
import type { ExplorerOptions } from '../../config/index.js'
import type { IndexerListener, IndexerStatus } from '../indexer/index.js'
import type { Logger, Metrics, MetricsSnapshot } from '../../platform/observability/index.js'
import { shareWriteCounts, type Store, type StoredSettlement } from '../store/index.js'
import { SharedConnections, sharedConnectionsMemory } from '../../platform/limits/index.js'
import { exportCounts } from '../api/index.js'
import type { FromThread, ServerThreadData, ToThread } from './thread-messages.js'
import { BaseError } from '../../errors/index.js'

/** How often threads and the main thread exchange metrics and the main thread checks the indexer's status. */
const EXCHANGE_MS = 250
/** uWS's idle timeout of kept-alive HTTP connections (10 s), and a margin. */
const STOP_WAIT_MS = 12_000

/**
 * The options each serving thread (the main one included) applies: the live feeds' budget of unsent
 * bytes is split evenly among the threads, so that together they hold no more than the one given.
 */
export function perThreadOptions(options: ExplorerOptions): ExplorerOptions {
  if (options.serverThreads === 1) return options
  const { maxBufferedBytes, maxTotalBufferedBytes } = options.live
  return { ...options, live: { ...options.live, maxTotalBufferedBytes: Math.max(maxBufferedBytes, Math.floor(maxTotalBufferedBytes / options.serverThreads)) } }
}

export interface ServerThreadsOptions {
  /** As `perThreadOptions` gives them. */
  options: ExplorerOptions
  store: Store
  metrics: Metrics
  logger: Logger
  /** The indexer's status, read when it may have changed. */
  status: () => IndexerStatus
  /** A module whose `configureApp(app)` adds routes in every thread (the benchmarks' static page). */
  appModule?: string
}

export class ServerThreads {
  #o: ServerThreadsOptions
  #writes: ReturnType<typeof shareWriteCounts>
  #threads: Worker[] = []
  #snapshots = new Map<Worker, MetricsSnapshot>()
  #lastStatus = ''
  #timer: NodeJS.Timeout | undefined
  #threadRequests: (value: number, labels: { thread: string }) => void
  #connectionsMemory = sharedConnectionsMemory()
  #exportsMemory = sharedConnectionsMemory()
  /** The live connection caps, for every thread's hub at once: the main thread's view. */
  readonly connections: SharedConnections
  /** The export caps, for every thread at once: the main thread's view. */
  readonly exports: SharedConnections

  /** Before the indexer writes anything: the write counts move to shared memory now. */
  constructor(o: ServerThreadsOptions) {
    this.#o = o
    this.#writes = shareWriteCounts(o.store)
    this.connections = new SharedConnections(this.#connectionsMemory, o.options.live.maxConnections, o.options.live.maxConnectionsPerAddress)
    this.exports = exportCounts(o.options.exports, this.#exportsMemory)
    o.metrics.merge(() => this.#snapshots.values())
    this.#threadRequests = o.metrics.gauge('server_thread_requests', 'HTTP requests answered by each server thread (1, 2, …) as of its last report; the main thread answered the rest')
  }

  /** Reports go to the threads first, stamped, then to the main thread's own parts. */
  forward(inner: IndexerListener): IndexerListener {
    return {
      committed: (settlements) => {
        this.#report('committed', settlements)
        inner.committed(settlements)
      },
      removed: (settlements) => {
        this.#report('removed', settlements)
        inner.removed(settlements)
      },
    }
  }

  /** Starts `options.serverThreads − 1` threads listening on `port`; resolves when all listen. */
  async start(port: number): Promise<void> {
    const { options, appModule } = this.#o
    const data: Omit<ServerThreadData, 'thread'> = { options: { ...options, port }, writes: this.#writes.memory, connections: this.#connectionsMemory, exports: this.#exportsMemory, status: this.#o.status(), metrics: this.#o.metrics.render(), appModule }
    const started = Array.from({ length: options.serverThreads - 1 }, (_, i) => this.#spawn({ ...data, thread: i + 1 }))
    const results = await Promise.allSettled(started)
    this.#threads = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed) {
      await this.close()
      throw failed.reason
    }
    this.#timer = setInterval(() => this.#exchange(), EXCHANGE_MS)
    this.#timer.unref()
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    const threads = this.#threads.splice(0)
    await Promise.all(threads.map((thread) => this.#stop(thread)))
  }

  #spawn(data: ServerThreadData): Promise<Worker> {
    const thread = startWorker(data)
    return new Promise((resolve, reject) => {
      const early = (error: Error) => reject(new BaseError(`server thread ${data.thread} did not start`, { cause: error }))
      thread.once('error', early)
      // Ended without an error before listening: never left waiting (once listening, a rejection is void).
      thread.once('exit', (code) => reject(new BaseError(`server thread ${data.thread} ended before listening (exit code ${code})`, { details: { exitCode: code } })))
      thread.on('message', (message: FromThread) => {
        if (message.type === 'listening') {
          thread.off('error', early)
          thread.on('error', (error) => this.#o.logger.error('server thread failed', { thread: data.thread, error }))
          thread.once('exit', (code) => this.#threads.includes(thread) && this.#o.logger.error('server thread ended; the others go on', { thread: data.thread, code }))
          resolve(thread)
        } else if (message.type === 'metrics') {
          this.#snapshots.set(thread, message.snapshot)
          this.#threadRequests(this.#o.metrics.sumOf(message.snapshot, 'http_requests_total'), { thread: String(data.thread) })
        }
      })
    })
  }

  #report(type: 'committed' | 'removed', settlements: StoredSettlement[]): void {
    const message: ToThread = { type, stamp: this.#writes.reported(), settlements, status: this.#o.status() }
    for (const thread of this.#threads) thread.postMessage(message)
  }

  #exchange(): void {
    const status = this.#o.status()
    const text = JSON.stringify(status)
    const changed = text !== this.#lastStatus
    this.#lastStatus = text
    const message: ToThread = { type: 'exchange', status: changed ? status : undefined, metrics: this.#o.metrics.render() }
    for (const thread of this.#threads) thread.postMessage(message)
  }

  /**
   * A thread ends by itself once its last connection closes (uWS aborts a thread ended with sockets
   * open): it closes its listening socket and live connections at once, and uWS closes idle kept-alive
   * HTTP connections after 10 s (a request on one is answered 503 and closed, guard-routes.ts).
   */
  async #stop(thread: Worker): Promise<void> {
    const exited = new Promise<boolean>((resolve) => thread.once('exit', () => resolve(true)))
    thread.postMessage({ type: 'stop' } satisfies ToThread)
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_WAIT_MS).unref())
    if (!(await Promise.race([exited, timeout]))) {
      this.#o.logger.warn('a server thread still holds connections; leaving it', { waitedMs: STOP_WAIT_MS })
      thread.unref()
    }
    this.#snapshots.delete(thread)
  }
}

/**
 * The thread module beside this one: `server-thread.ts` under tsx (a worker does not inherit tsx's
 * loader under Node 20: it registers it first), `server-thread.js` flat in `dist/` in a build.
 */
function startWorker(data: ServerThreadData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./server-thread.js', import.meta.url), { workerData: data })
  const entry = new URL('./server-thread.ts', import.meta.url).href
  // layering: dynamic import — the boot code of a worker under tsx: its loader, then this piece's own server-thread.ts
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(boot, { eval: true, workerData: data })
}
