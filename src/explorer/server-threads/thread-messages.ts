/** What the main thread and its server threads say to each other (server-threads.ts, server-thread.ts). */
import type { ExplorerOptions } from '../../config/index.js'
import type { IndexerStatus } from '../indexer/index.js'
import type { MetricsSnapshot } from '../../platform/observability/index.js'
import type { StoredSettlement } from '../store/index.js'

export interface ServerThreadData {
  /** 1, 2, …: the main thread is 0. */
  thread: number
  /** `port` is the one the main thread listens on. */
  options: ExplorerOptions
  /** The main thread's write counts (store/settlement-writes.ts). */
  writes: SharedArrayBuffer
  /** Live connections of all threads (platform/limits SharedConnections). */
  connections: SharedArrayBuffer
  /** Exports running on all threads (platform/limits SharedConnections). */
  exports: SharedArrayBuffer
  status: IndexerStatus
  /** The main thread's metrics as they stand, until the first exchange brings them again. */
  metrics: string
  appModule?: string
}

export type ToThread =
  /** An indexer report; `stamp` counts the writes settled when it was made. */
  | { type: 'committed' | 'removed'; stamp: number; settlements: StoredSettlement[]; status: IndexerStatus }
  /** `status` when it changed; `metrics` as the main thread renders them, every thread's merged. */
  | { type: 'exchange'; status?: IndexerStatus; metrics: string }
  | { type: 'stop' }

export type FromThread = { type: 'listening' } | { type: 'metrics'; snapshot: MetricsSnapshot }
