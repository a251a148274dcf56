/**
 * Structured logs: one JSON object per line on stderr. Quiet by default (`info` shows start-up,
 * backfill progress, reorgs and failures; `debug` shows every indexing step). Every string a line carries
 * (the message, each field, an error's message, stack and causes) has its URLs redacted (redact-urls.ts):
 * an RPC URL's key never reaches the logs, whoever logs it.
 */
import type { LogLevel } from '../../config/index.js'
import { redactUrls } from './redact-urls.js'

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
    write(`${JSON.stringify(entry, logValue)}\n`)
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  }
}

const MAX_CAUSES = 8

/** Each value as a line shows it: strings redacted, bigints as decimals, errors with message, stack and causes. */
function logValue(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactUrls(value)
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Error) return errorFields(value, MAX_CAUSES)
  return value
}

/** An error's own fields (viem's `url`, `details`...) with its name, message, stack and cause chain, which JSON leaves out. */
function errorFields(error: Error, causes: number): Record<string, unknown> {
  const cause = error.cause instanceof Error ? (causes > 0 ? errorFields(error.cause, causes - 1) : error.cause.message) : error.cause
  return { ...error, name: error.name, message: error.message, stack: error.stack, ...(cause !== undefined && { cause }) }
}
