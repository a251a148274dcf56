/**
 * TRUSTED_PROXIES: the reverse proxies (addresses or CIDR ranges, comma- or space-separated) whose
 * X-Forwarded-For names the client for every per-address limit (platform/http client-address.ts).
 * Empty by default: the socket's peer is the client, and the header is never read.
 */
import { isIP } from 'node:net'
import { ConfigError, type Env } from './parse-env.js'

const NAME = 'TRUSTED_PROXIES'

export function trustedProxiesSetting(env: Env): readonly string[] {
  const entries = (env[NAME] ?? '').split(/[\s,]+/).filter((entry) => entry !== '')
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/')
    const family = address.includes('%') ? 0 : isIP(address)
    const width = family === 4 ? 32 : 128
    if (family === 0 || extra !== undefined || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > width))) {
      throw new ConfigError(`${NAME} must list IP addresses or CIDR ranges (10.0.0.0/8, 2001:db8::/32), got "${entry}"`)
    }
  }
  return Object.freeze(entries)
}
