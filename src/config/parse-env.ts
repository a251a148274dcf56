/**
 * Reading settings from the environment with one clear line per missing or malformed value. Each
 * piece builds its own typed options from these; the error names the variable.
 */
import { BaseError } from '../errors/index.js'
import type { Hex } from '../wire/index.js'

/** A setting missing or malformed: one line naming the variable. Never retryable: the operator must fix it. */
export class ConfigError extends BaseError {
  override name = 'ConfigError'
}

export type Env = Record<string, string | undefined>

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === '' ? undefined : value
}

export function intSetting(env: Env, name: string, fallback: number | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const value = raw(env, name)
  if (value === undefined) {
    if (fallback === undefined) throw new ConfigError(`${name} is required (an integer ${min}..${max})`)
    return fallback
  }
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be an integer ${min}..${max}, got "${value}"`)
  }
  return Number(value)
}

export function urlSetting(env: Env, name: string, fallback: string | undefined, protocols = ['http:', 'https:']): string {
  const value = raw(env, name) ?? fallback
  if (value === undefined) throw new ConfigError(`${name} is required (a URL)`)
  let url: URL
  try {
    url = new URL(value)
  } catch (error) {
    throw new ConfigError(`${name} must be a URL, got "${value}"`, { cause: error })
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${value}"`)
  return value
}

/**
 * One URL or several, comma-separated (blanks around the commas ignored), each checked as `urlSetting`
 * does; the error names the entry by its place, never its text beyond the host (a URL may carry a key).
 */
export function urlListSetting(env: Env, name: string, fallback: string | undefined, protocols = ['http:', 'https:']): string[] {
  const value = raw(env, name) ?? fallback
  if (value === undefined) throw new ConfigError(`${name} is required (a URL, or several separated by commas)`)
  const entries = value.split(',').map((entry) => entry.trim())
  const urls = entries.map((entry, i) => {
    const which = entries.length > 1 ? `${name}'s entry ${i + 1}` : name
    if (entry === '') throw new ConfigError(`${which} is empty (URLs separated by single commas)`)
    let url: URL
    try {
      url = new URL(entry)
    } catch {
      throw new ConfigError(`${which} must be a URL (${protocols.join(' or ')}; the value is not shown: it may carry a key)`)
    }
    if (!protocols.includes(url.protocol)) throw new ConfigError(`${which} must use ${protocols.join(' or ')}, got ${url.protocol} (${url.host})`)
    return entry
  })
  const seen = new Set<string>()
  for (const [i, url] of urls.entries()) {
    if (seen.has(url)) throw new ConfigError(`${name}'s entry ${i + 1} repeats an earlier one (${new URL(url).host})`)
    seen.add(url)
  }
  return urls
}

export function addressSetting(env: Env, name: string, fallback: Hex | undefined): Hex {
  const value = raw(env, name) ?? fallback
  if (value === undefined) throw new ConfigError(`${name} is required (a 0x-prefixed 20-byte address)`)
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address, got "${value}"`)
  return value.toLowerCase() as Hex
}

export function oneOfSetting<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const value = raw(env, name) ?? fallback
  if (!choices.includes(value as T)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${value}"`)
  return value as T
}

/** How much a piece logs: `info` by default, `debug` for every step, `silent` for none. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

export function logLevelSetting(env: Env, fallback: LogLevel = 'info'): LogLevel {
  return oneOfSetting(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'], fallback)
}

export function stringSetting(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback
}
