/**
 * Reads operator statistics from the database every `everyMs` (one round at a time), for gauges a scrape reads synchronously.
 * Each round first probes the database (bounded, `database-unavailable.ts`) and sets the piece's
 * `database_up` gauge: whether it reaches PostgreSQL. `onRead` gets the statistics when they could be read.
 */
import type { Logger, Metrics } from '../../platform/observability/index.js'
import { databaseUnavailable } from './database-unavailable.js'
import type { Sql } from './open-database.js'

export interface PollDatabaseParams<T> {
  sql: Sql
  everyMs: number
  read(sql: Sql): Promise<T>
  onRead(stats: T): void
  metrics: Metrics
  log: Logger
}

export function pollDatabase<T>({ sql, everyMs, read, onRead, metrics, log }: PollDatabaseParams<T>): { stop(): Promise<void> } {
  const up = metrics.gauge('database_up', `1 while this piece reaches PostgreSQL (probed every ${everyMs / 1000} s)`)
  let running: Promise<void> | undefined
  const poll = async () => {
    const unavailable = await databaseUnavailable(sql)
    up(unavailable === undefined ? 1 : 0)
    if (unavailable) return
    try {
      onRead(await read(sql))
    } catch (error) {
      log.warn('operator statistics unreadable', { error })
    }
  }
  // A round still running (a slow database) is not joined by another.
  const tick = () => void (running ??= poll().finally(() => (running = undefined)))
  tick()
  const timer = setInterval(tick, everyMs)
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
