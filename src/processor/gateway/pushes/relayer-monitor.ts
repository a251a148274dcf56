/**
 * The relayer's availability as the active submitter last wrote it, kept current by its notifications
 * and a periodic re-read (a notification lost while the listener reconnected still shows within one
 * period). The submitter rewrites the status every heartbeat, so a status older than `staleMs` means no
 * submitter is alive: what a gateway accepted then would never be sent, so it counts as unavailable.
 * `/health` and the submission handler answer from it without touching the database.
 */
import type { Sql } from '../../db/index.js'
import { readRelayerStatus, type RelayerStatus, type StoredRelayerStatus } from '../../db/index.js'
import type { Logger } from '../../../platform/observability/index.js'

export interface ObservedRelayer extends RelayerStatus {
  /** No submitter has rewritten the status for `staleMs`. */
  stale: boolean
}

export interface RelayerMonitor {
  /** The status last read, undefined before any submitter reported. */
  current(): ObservedRelayer | undefined
  /** Why new submissions are refused now (RELAYER_UNAVAILABLE), or undefined while they are taken. */
  unavailable(): string | undefined
  refresh(): Promise<void>
  stop(): void
}

export interface MonitorRelayerParams {
  sql: Sql
  refreshMs: number
  /** A status older than this (on the database's clock) is stale. */
  staleMs: number
  log: Logger
}

export async function monitorRelayer({ sql, refreshMs, staleMs, log }: MonitorRelayerParams): Promise<RelayerMonitor> {
  // The age is the database's at the read plus the time since on this host's monotonic clock.
  const readNow = async () => {
    const status = await readRelayerStatus(sql)
    return status && { status, at: performance.now() }
  }
  let read: { status: StoredRelayerStatus; at: number } | undefined = await readNow()
  const refresh = async () => {
    try {
      read = await readNow()
    } catch (error) {
      log.warn('relayer status unreadable; keeping the last one', { error })
    }
  }
  const current = (): ObservedRelayer | undefined => {
    if (!read) return undefined
    const { ageMs, ...status } = read.status
    return { ...status, stale: ageMs + (performance.now() - read.at) > staleMs }
  }
  const timer = setInterval(() => void refresh(), refreshMs)
  return {
    current,
    unavailable() {
      const status = current()
      if (status?.stale) return `no submitter has reported the relayer ${status.relayer} since ${status.updatedAt}, so nothing accepted now would be sent`
      if (status && !status.available) return `the relayer ${status.relayer} holds ${status.balance} wei, below the minimum ${status.minimum}`
      return undefined
    },
    refresh,
    stop: () => clearInterval(timer),
  }
}
