/**
 * The explorer's options, built once from the environment (SPEC §6) with a fixed precedence:
 * environment first, then the local devnet's deployment (only on chain 31337), then defaults.
 */
import { availableParallelism } from 'node:os'
import type { Deployment } from '../wire/index.js'
import type { LogLevel } from './parse-env.js'
import { chainSettingsFromEnv, pollIntervalSetting, type ChainSettings } from './chain-settings.js'
import { intSetting, logLevelSetting, oneOfSetting, stringSetting, urlSetting, type Env } from './parse-env.js'
import { trustedProxiesSetting } from './trusted-proxies.js'

export interface LiveLimits {
  maxConnections: number
  /** Live connections (WebSocket and SSE) one client address may hold. */
  maxConnectionsPerAddress: number
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client address. */
  trustedProxies: readonly string[]
  maxSubscriptionsPerConnection: number
  maxMessageBytes: number
  /** A WebSocket or SSE subscriber whose unsent bytes pass this is disconnected. */
  maxBufferedBytes: number
  /** Unsent bytes of all live connections together; past it the oldest slow consumers are disconnected. */
  maxTotalBufferedBytes: number
  idleTimeoutSeconds: number
  /** SSE responses get a comment line this often, so that proxies keep them open. */
  sseHeartbeatSeconds: number
  /** Candidates replays may read in one turn of the event loop before everyone else is served again. */
  replayScanPerTurn: number
  /** SUBSCRIBE messages one WebSocket may send: a burst, then this many per second. */
  subscribesPerSecond: number
  subscribeBurst: number
}

/** What one `/events/export` may take, and how many may run (caps hold for all server threads together). */
export interface ExportLimits {
  /** Exports running at once; past it, 503 with Retry-After. */
  maxConcurrent: number
  /** Exports one client address may run at once; past it, 429 with Retry-After. */
  maxPerAddress: number
  /** An export still running this long after its start is cut off (its connection closed mid-file). */
  maxSeconds: number
}

export const QUERY_INLINE = ['cheap', 'none'] as const
export type QueryInline = (typeof QUERY_INLINE)[number]

export interface ExplorerOptions extends ChainSettings {
  confirmations: number
  host: string
  port: number
  dataDir: string
  pollIntervalMs: number
  /** `/ready` answers 200 while the indexer is at most this many confirmed blocks behind. */
  readyMaxLag: number
  queryWorkers: number
  /**
   * Which queries the server thread answers itself: `cheap` ones (pages with at most one field filter,
   * lookups, small statistics; the rest go to the pool), or `none` (every query the caches do not
   * answer goes to the pool, so that query throughput grows with QUERY_WORKERS and the cores; uWS
   * then closes a connection that pipelines a request behind one still pending).
   */
  queryInline: QueryInline
  /**
   * Threads that serve HTTP, SSE and WebSocket on the one port (the kernel spreads connections over
   * them, SO_REUSEPORT); 1 = the main thread alone. Each extra thread answers every route from its own
   * read handle, caches and live hub, fed what the main thread's indexer commits (explorer/server-threads).
   */
  serverThreads: number
  /** Settlements a filtered statistic may read one by one (what its buckets cannot answer); past it, 400. */
  statsMaxWalk: number
  /**
   * Candidates a `/events` page of several field filters (or a field filter and amount bounds walked
   * together) may read for its total and for its page; past it the total is a lower bound
   * (`totalRelation: "gte"`) and the page may end early with a cursor to go on from.
   */
  eventsMaxWalk: number
  /** Tasks that may wait for the query pool beyond those its workers hold; past it, 503 with Retry-After. */
  queryMaxQueue: number
  exports: ExportLimits
  /** Threads of the indexing pool (backfill ranges fetched, decoded and encoded); 0 = on the main thread. */
  indexWorkers: number
  logLevel: LogLevel
  live: LiveLimits
  /** Where a new replica's store comes from when DATA_DIR holds none (explorer/snapshot). */
  snapshot?: SnapshotSource
  /** What shared caches may keep of the REST answers (explorer/api/rest/http-cache.ts). */
  httpCache: HttpCacheOptions
}

export interface HttpCacheOptions {
  /** HTTP_MAX_AGE_SECONDS: answers that move with the head (about a block). */
  maxAgeSeconds: number
  /** HTTP_FINAL_MAX_AGE_SECONDS: answers about blocks HTTP_FINAL_DEPTH or more below the indexed head. */
  finalMaxAgeSeconds: number
  finalDepth: number
}

export interface SnapshotSource {
  /** SNAPSHOT_FROM: a snapshot directory, or the http(s) URL of one. */
  from: string
  /** SNAPSHOT_TOKEN: sent as `Authorization: Bearer …` to a URL. */
  token?: string
}

/** The local devnet's deployment fills in what the environment leaves out, on chain 31337 only. */
export function explorerOptionsFromEnv(env: Env = process.env, deployment?: Deployment): ExplorerOptions {
  const chain = chainSettingsFromEnv(env, deployment)
  const { chainId, contract } = chain
  const maxSubscriptionsPerConnection = intSetting(env, 'WS_MAX_SUBSCRIPTIONS', 32, 1)
  const maxBufferedBytes = intSetting(env, 'LIVE_MAX_BUFFERED_BYTES', 4 << 20, 1024)
  return {
    ...chain,
    confirmations: intSetting(env, 'CONFIRMATION_BLOCKS', 0, 0, 1000),
    host: stringSetting(env, 'EXPLORER_HOST', '127.0.0.1'),
    port: intSetting(env, 'EXPLORER_PORT', 4001, 0, 65535),
    dataDir: stringSetting(env, 'DATA_DIR', `.data/explorer-${chainId}-${contract.slice(2, 10)}`),
    pollIntervalMs: pollIntervalSetting(env, chainId),
    readyMaxLag: intSetting(env, 'READY_MAX_LAG', 2),
    queryWorkers: intSetting(env, 'QUERY_WORKERS', 1, 0, 64),
    queryInline: oneOfSetting(env, 'QUERY_INLINE', QUERY_INLINE, 'cheap'),
    // `auto`: a thread per core this process may use (cgroup limits included).
    serverThreads: env.SERVER_THREADS === 'auto' ? Math.min(availableParallelism(), 64) : intSetting(env, 'SERVER_THREADS', 1, 1, 64),
    statsMaxWalk: intSetting(env, 'STATS_MAX_WALK', 250_000, 1),
    eventsMaxWalk: intSetting(env, 'EVENTS_MAX_WALK', 100_000, 1),
    queryMaxQueue: intSetting(env, 'QUERY_MAX_QUEUE', 64, 1, 1_000_000),
    exports: {
      maxConcurrent: intSetting(env, 'EXPORT_MAX_CONCURRENT', 32, 1, 100_000),
      maxPerAddress: intSetting(env, 'EXPORT_MAX_PER_ADDRESS', 2, 1, 100_000),
      maxSeconds: intSetting(env, 'EXPORT_MAX_SECONDS', 900, 1, 86_400),
    },
    indexWorkers: intSetting(env, 'INDEX_WORKERS', 1, 0, 64),
    logLevel: logLevelSetting(env),
    snapshot: snapshotSetting(env),
    httpCache: {
      maxAgeSeconds: intSetting(env, 'HTTP_MAX_AGE_SECONDS', 1, 0, 3600),
      finalMaxAgeSeconds: intSetting(env, 'HTTP_FINAL_MAX_AGE_SECONDS', 3600, 0, 31_536_000),
      finalDepth: intSetting(env, 'HTTP_FINAL_DEPTH', 64, 1, 1_000_000),
    },
    live: {
      maxConnections: intSetting(env, 'WS_MAX_CONNECTIONS', 20_000, 1),
      maxConnectionsPerAddress: intSetting(env, 'WS_MAX_CONNECTIONS_PER_IP', 256, 1),
      trustedProxies: trustedProxiesSetting(env),
      maxSubscriptionsPerConnection,
      maxMessageBytes: intSetting(env, 'WS_MAX_MESSAGE_BYTES', 4096, 256, 1 << 20),
      maxBufferedBytes,
      maxTotalBufferedBytes: intSetting(env, 'LIVE_MAX_TOTAL_BUFFERED_BYTES', Math.max(1 << 30, maxBufferedBytes), maxBufferedBytes),
      idleTimeoutSeconds: intSetting(env, 'WS_IDLE_TIMEOUT_SECONDS', 120, 8, 960),
      sseHeartbeatSeconds: intSetting(env, 'SSE_HEARTBEAT_SECONDS', 15, 1, 300),
      replayScanPerTurn: intSetting(env, 'LIVE_REPLAY_SCAN_PER_TURN', 4096, 256, 1 << 20),
      subscribesPerSecond: intSetting(env, 'WS_SUBSCRIBE_RATE', 10, 1, 10_000),
      // A reconnecting SDK sends every subscription again at once: the default burst lets it.
      subscribeBurst: intSetting(env, 'WS_SUBSCRIBE_BURST', maxSubscriptionsPerConnection, 1, 10_000),
    },
  }
}

function snapshotSetting(env: Env): SnapshotSource | undefined {
  const from = env.SNAPSHOT_FROM?.trim()
  if (!from) return undefined
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from)) urlSetting(env, 'SNAPSHOT_FROM', undefined)
  return { from, token: env.SNAPSHOT_TOKEN?.trim() || undefined }
}
