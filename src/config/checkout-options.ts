/**
 * The checkout engine's options (PROCESSOR.md §4), built once from the environment: the chain (the
 * devnet's deployment fills in on chain 31337), the mutual-TLS listener and its certificates, the explorer
 * reconciliation follows, and the charge and reconciliation settings.
 *
 * TLS material: the server's certificate and key come from CHECKOUT_TLS_CERT_PATH / CHECKOUT_TLS_KEY_PATH;
 * on chain 31337 without them, the CA issues one at start for 127.0.0.1, localhost and CHECKOUT_DOMAIN.
 * Clients are verified against the processor CA's certificate, CA_CERT_PATH (on 31337 without it, the
 * local CA in CA_DATA_DIR, created if absent, exactly as `npm run ca` does).
 */
import type { Deployment } from '../wire/index.js'
import type { LogLevel } from './parse-env.js'
import { DEFAULT_CA_DATA_DIR } from './ca-options.js'
import { chainSettingsFromEnv, pollIntervalSetting, type ChainSettings } from './chain-settings.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, intSetting, logLevelSetting, stringSetting, urlSetting, type Env } from './parse-env.js'
import { publicUrlsFromEnv } from './public-urls.js'
import { webhookKeyOptionsFromEnv, type WebhookKeyOptions } from './webhook-options.js'

export interface PemFiles {
  certPath: string
  keyPath: string
}

export interface CheckoutTlsOptions {
  /** The server's certificate and key; absent (chain 31337 only) = issued at start by the CA. */
  server?: PemFiles
  /** CA_CERT_PATH, with CA_KEY_PATH when given; absent (chain 31337 only) = the local CA in `caDataDir`. */
  ca?: { certPath: string; keyPath?: string }
  caDataDir: string
  /** What an issued server certificate names. */
  hosts: string[]
}

export interface CheckoutOptions extends ChainSettings {
  host: string
  port: number
  tls: CheckoutTlsOptions
  explorerUrl: string
  /** `widgetUrl` of a charge is `<widgetBaseUrl>/s/<id>`. */
  widgetBaseUrl: string
  /** A charge's deadline: this long after its creation. */
  chargeTtlSeconds: number
  /** Blocks on top of a settlement's before its charge is settled. */
  confirmationBlocks: number
  /**
   * Blocks the chain must build on without a settlement, seen at both ends, before it counts as gone (a
   * reorg): one answer of a lagging or erring node never takes a payment away.
   */
  removedAfterBlocks: number
  /** Blocks a payment taken away stays watched for its return; its charge or refund does not expire meanwhile. */
  restoreWatchBlocks: number
  /** Chain head polling (confirmations). */
  pollIntervalMs: number
  /** How often charges past their deadline are expired. */
  expirySweepMs: number
  /** How often a standby replica tries to become the active reconciler. */
  standbyPollMs: number
  /** Manual webhook retries (`POST …/retry`) one merchant may ask of one replica per minute. */
  webhookRetriesPerMinute: number
  /** Webhook secret rotations (`POST …/rotate-secret`) one merchant may ask of one replica per hour. */
  webhookRotationsPerHour: number
  /** What opens and seals the webhook secrets, for a merchant's rotation of its own (the delivery workers' key). */
  webhookKeys: WebhookKeyOptions
  logLevel: LogLevel
}

export function checkoutOptionsFromEnv(env: Env = process.env, deployment?: Deployment): CheckoutOptions {
  const chain = chainSettingsFromEnv(env, deployment)
  return {
    ...chain,
    host: stringSetting(env, 'CHECKOUT_HOST', '127.0.0.1'),
    port: intSetting(env, 'CHECKOUT_PORT', 4003, 0, 65535),
    tls: tlsSettings(env, chain.chainId),
    explorerUrl: urlSetting(env, 'EXPLORER_URL', 'http://127.0.0.1:4001').replace(/\/+$/, ''),
    widgetBaseUrl: publicUrlsFromEnv(env).checkoutWidgetUrl,
    chargeTtlSeconds: chargeTtlSetting(env),
    confirmationBlocks: intSetting(env, 'CONFIRMATION_BLOCKS', 0, 0, 10_000),
    removedAfterBlocks: intSetting(env, 'CHECKOUT_REMOVED_AFTER_BLOCKS', 3, 1, 10_000),
    restoreWatchBlocks: intSetting(env, 'CHECKOUT_RESTORE_WATCH_BLOCKS', 64, 1, 100_000),
    pollIntervalMs: pollIntervalSetting(env, chain.chainId),
    expirySweepMs: intSetting(env, 'CHECKOUT_EXPIRY_SWEEP_MS', 1_000, 10, 3_600_000),
    standbyPollMs: intSetting(env, 'CHECKOUT_STANDBY_POLL_MS', 1_000, 10, 3_600_000),
    webhookRetriesPerMinute: intSetting(env, 'WEBHOOK_RETRIES_PER_MINUTE', 10, 1, 10_000),
    webhookRotationsPerHour: intSetting(env, 'WEBHOOK_ROTATIONS_PER_HOUR', 10, 1, 10_000),
    webhookKeys: webhookKeyOptionsFromEnv(env),
    logLevel: logLevelSetting(env),
  }
}

/** CHARGE_TTL_SECONDS: the checkout engine's charges and the widget's (from payment links) live as long. */
export const chargeTtlSetting = (env: Env) => intSetting(env, 'CHARGE_TTL_SECONDS', 900, 1, 7 * 86_400)

function tlsSettings(env: Env, chainId: number): CheckoutTlsOptions {
  const local = chainId === LOCAL_CHAIN_ID
  const server = pair(env, 'CHECKOUT_TLS_CERT_PATH', 'CHECKOUT_TLS_KEY_PATH')
  const caCert = env.CA_CERT_PATH?.trim() || undefined
  const caKey = env.CA_KEY_PATH?.trim() || undefined
  if (!local && !server) throw new ConfigError(`CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH are required on chain ${chainId}: a server certificate is only issued at start on chain ${LOCAL_CHAIN_ID}`)
  if (!local && !caCert) throw new ConfigError(`CA_CERT_PATH is required on chain ${chainId}: merchants' client certificates are verified against it`)
  if (!server && caCert && !caKey) throw new ConfigError(`CA_KEY_PATH is required to issue the checkout server's certificate (or set CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH)`)
  const domain = env.CHECKOUT_DOMAIN?.trim().replace(/:\d+$/, '').toLowerCase()
  return {
    server,
    ca: caCert ? { certPath: caCert, keyPath: caKey } : undefined,
    caDataDir: stringSetting(env, 'CA_DATA_DIR', DEFAULT_CA_DATA_DIR),
    hosts: ['127.0.0.1', 'localhost', ...(domain ? [domain] : [])],
  }
}

function pair(env: Env, certName: string, keyName: string): PemFiles | undefined {
  const certPath = env[certName]?.trim()
  const keyPath = env[keyName]?.trim()
  if (certPath && keyPath) return { certPath, keyPath }
  if (certPath || keyPath) throw new ConfigError(`${certName} and ${keyName} go together: ${certPath ? keyName : certName} is missing`)
  return undefined
}
