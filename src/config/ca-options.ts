/**
 * The certificate authority's options (PROCESSOR.md §3), built once from the environment. The admin API
 * listens on a loopback address only; off chain 31337 the CA's files and the admin token must be given,
 * because a local CA (and its token) is only ever created for the devnet.
 */
import { isIPv4 } from 'node:net'
import type { LogLevel } from './parse-env.js'
import { chainIdSetting } from './chain-settings.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, intSetting, logLevelSetting, stringSetting, type Env } from './parse-env.js'

export interface CaFiles {
  certPath: string
  keyPath: string
}

export interface CaOptions {
  chainId: number
  host: string
  port: number
  /** Where the local CA (chain 31337) and the local admin token live. */
  dataDir: string
  /** The operator's CA; absent on chain 31337 = the local CA in `dataDir`, created on first start. */
  files?: CaFiles
  /** Absent on chain 31337 = the token in `<dataDir>/admin-token`, created on first start. */
  adminToken?: string
  /** How long each CRL is valid; it is re-signed when half of that has passed. */
  crlValidityHours: number
  logLevel: LogLevel
}

export const DEFAULT_CA_DATA_DIR = '.data/ca'
export const MIN_ADMIN_TOKEN_LENGTH = 32

export function caOptionsFromEnv(env: Env = process.env): CaOptions {
  const chainId = chainIdSetting(env)
  const local = chainId === LOCAL_CHAIN_ID
  const host = stringSetting(env, 'CA_HOST', '127.0.0.1')
  if (!isLoopback(host)) throw new ConfigError(`CA_HOST must be a loopback address (127.0.0.1 or ::1): the admin API is never exposed, got "${host}"`)
  const adminToken = env.CA_ADMIN_TOKEN?.trim() || undefined
  if (!adminToken && !local) throw new ConfigError(`CA_ADMIN_TOKEN is required on chain ${chainId} (at least ${MIN_ADMIN_TOKEN_LENGTH} characters)`)
  if (adminToken && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) throw new ConfigError(`CA_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`)
  return {
    chainId,
    host,
    port: intSetting(env, 'CA_PORT', 4005, 0, 65535),
    dataDir: stringSetting(env, 'CA_DATA_DIR', DEFAULT_CA_DATA_DIR),
    files: caFilesSetting(env, chainId),
    adminToken,
    crlValidityHours: intSetting(env, 'CA_CRL_VALIDITY_HOURS', 168, 2, 24 * 90),
    logLevel: logLevelSetting(env),
  }
}

function caFilesSetting(env: Env, chainId: number): CaFiles | undefined {
  const certPath = env.CA_CERT_PATH?.trim()
  const keyPath = env.CA_KEY_PATH?.trim()
  if (certPath && keyPath) return { certPath, keyPath }
  if (certPath || keyPath) throw new ConfigError(`CA_CERT_PATH and CA_KEY_PATH go together: ${certPath ? 'CA_KEY_PATH' : 'CA_CERT_PATH'} is missing`)
  if (chainId === LOCAL_CHAIN_ID) return undefined
  throw new ConfigError(`CA_CERT_PATH and CA_KEY_PATH are required on chain ${chainId}: a local CA is only created on chain ${LOCAL_CHAIN_ID}`)
}

function isLoopback(host: string): boolean {
  return (isIPv4(host) && host.startsWith('127.')) || host === '::1'
}
