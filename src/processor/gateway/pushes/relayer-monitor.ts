/**
 * The relayer's availability as the active submitter last wrote it, kept current by its notifications
 * and a periodic re-read (a notification lost while the listener reconnected, or a submitter that
 * died, still shows within one period). `/health` answers from it without touching the database.
 */
import type { Sql } from '../../db/index.js'
import { readRelayerStatus, type RelayerStatus } from '../../db/index.js'
import type { Logger } from '../../../platform/observability/index.js'

export interface RelayerMonitor {
  current(): RelayerStatus | undefined
  refresh(): Promise<void>
  stop(): void
}

export async function monitorRelayer(sql: Sql, refreshMs: number, log: Logger): Promise<RelayerMonitor> {
  let status = await readRelayerStatus(sql)
  const refresh = async () => {
    try {
      status = await readRelayerStatus(sql)
    } catch (error) {
      log.warn('relayer status unreadable; keeping the last one', { error: (error as Error).message })
    }
  }
  const timer = setInterval(() => void refresh(), refreshMs)
  return { current: () => status, refresh, stop: () => clearInterval(timer) }
}
