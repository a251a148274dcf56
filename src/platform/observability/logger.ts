/**
 * Structured logs: one JSON object per line on stderr. Quiet by default (`info` shows start-up,
 * backfill progress, reorgs and failures; `debug` shows every indexing step).
 */
import type { LogLevel } from '../../config/index.js'

export type { LogLevel }

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  child(fields: LogFields): Logger
}

export function createLogger(level: LogLevel = 'info', base: LogFields = {}, write = (line: string) => process.stderr.write(line)): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (RANK[at] < RANK[level]) return
    const entry = { time: new Date().toISOString(), level: at, msg, ...base, ...fields }
    write(`${JSON.stringify(entry, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`)
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  }
}
