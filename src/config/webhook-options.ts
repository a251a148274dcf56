/**
 * The webhook delivery worker's options (PROCESSOR.md §4), built once from the environment. Off chain
 * 31337 WEBHOOK_SECRET_KEY and WEBHOOK_ENCRYPTION_KEY are required; on 31337 local ones are created when
 * they are unset.
 */
import { formatSecret, MIN_SECRET_BYTES, secretKeyBytes } from './webhook-secret.js'
import { chainIdSetting } from './chain-settings.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, intSetting, stringSetting, type Env } from './parse-env.js'

/** What opens the master secrets at rest: for the worker and for the admin commands. */
export interface WebhookKeyOptions {
  /** Encrypts the master secrets in PostgreSQL (its SHA-256 is the AES-256-GCM key); absent on chain 31337 = the local one in `dataDir`. */
  encryptionKey?: string
  dataDir: string
}

export interface WebhookOptions extends WebhookKeyOptions {
  /** The first master secret (`whsec_…`); absent on chain 31337 = the local one in `dataDir`. */
  secretKey?: string
  /** Per request. */
  timeoutMs: number
  /** How long an event is retried after its first attempt before it is marked failed. */
  retryWindowMs: number
  backoffBaseMs: number
  backoffMaxMs: number
  /** Look for due retries this often (a NOTIFY wakes the worker for new events). */
  pollMs: number
  /** Requests in flight per worker that have not waited `slowMs` yet (the worker's slots). */
  concurrency: number
  /**
   * A request unanswered after this long gives its slot back and waits in the worker's slow lane; a merchant whose
   * last answer (of any kind) took this long has its next requests sent in the slow lane from the start.
   */
  slowMs: number
  /** Requests in the slow lane per worker; when it is full, a slow request keeps its slot and known-slow merchants wait. */
  slowConcurrency: number
  /** Requests in flight to one merchant, over all workers: a slow endpoint holds no more slots than this. */
  perMerchantConcurrency: number
  /** Failed attempts in a row that open a merchant's circuit breaker (its events wait `breakerCooldownMs`). */
  breakerFailures: number
  breakerCooldownMs: number
  /** Loopback, private and link-local webhook targets: allowed on chain 31337 only (the demo store is local). */
  allowInternalTargets: boolean
}

export const DEFAULT_WEBHOOK_DATA_DIR = '.data/webhooks'
const HOUR_MS = 3_600_000

export function webhookOptionsFromEnv(env: Env = process.env): WebhookOptions {
  const chainId = chainIdSetting(env)
  const secretKey = secretKeySetting(env)
  if (!secretKey && chainId !== LOCAL_CHAIN_ID) {
    throw new ConfigError(`WEBHOOK_SECRET_KEY is required on chain ${chainId} (whsec_<base64> or at least 32 characters); a local one is only created on chain ${LOCAL_CHAIN_ID}`)
  }
  return {
    secretKey,
    ...webhookKeyOptionsFromEnv(env),
    timeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryWindowMs: intSetting(env, 'WEBHOOK_RETRY_HOURS', 24, 1, 24 * 30) * HOUR_MS,
    backoffBaseMs: intSetting(env, 'WEBHOOK_BACKOFF_BASE_MS', 5_000, 10),
    backoffMaxMs: intSetting(env, 'WEBHOOK_BACKOFF_MAX_MS', HOUR_MS, 10),
    pollMs: intSetting(env, 'WEBHOOK_POLL_MS', 1_000, 10),
    concurrency: intSetting(env, 'WEBHOOK_CONCURRENCY', 16, 1, 1_000),
    slowMs: intSetting(env, 'WEBHOOK_SLOW_MS', 1_000, 10, 120_000),
    slowConcurrency: intSetting(env, 'WEBHOOK_SLOW_CONCURRENCY', 64, 0, 10_000),
    perMerchantConcurrency: intSetting(env, 'WEBHOOK_MERCHANT_CONCURRENCY', 4, 1, 1_000),
    breakerFailures: intSetting(env, 'WEBHOOK_BREAKER_FAILURES', 5, 1, 1_000),
    breakerCooldownMs: intSetting(env, 'WEBHOOK_BREAKER_COOLDOWN_MS', 60_000, 10, 24 * HOUR_MS),
    allowInternalTargets: chainId === LOCAL_CHAIN_ID,
  }
}

export function webhookKeyOptionsFromEnv(env: Env = process.env): WebhookKeyOptions {
  const chainId = chainIdSetting(env)
  const encryptionKey = encryptionKeySetting(env, 'WEBHOOK_ENCRYPTION_KEY')
  if (!encryptionKey && chainId !== LOCAL_CHAIN_ID) {
    throw new ConfigError(`WEBHOOK_ENCRYPTION_KEY is required on chain ${chainId} (at least 32 characters): it encrypts the webhook secrets in the database; a local one is only created on chain ${LOCAL_CHAIN_ID}`)
  }
  return { encryptionKey, dataDir: stringSetting(env, 'WEBHOOK_DATA_DIR', DEFAULT_WEBHOOK_DATA_DIR) }
}

/**
 * The key the webhook secrets move to (`npm run admin -- reencrypt-webhook-secrets`): WEBHOOK_ENCRYPTION_KEY
 * stays the key they are under now, as the running workers have it.
 */
export function newWebhookEncryptionKeyFromEnv(env: Env = process.env): string {
  const key = encryptionKeySetting(env, 'NEW_WEBHOOK_ENCRYPTION_KEY')
  if (!key) throw new ConfigError('NEW_WEBHOOK_ENCRYPTION_KEY is required (at least 32 characters): the key the webhook secrets are re-encrypted under')
  return key
}

function encryptionKeySetting(env: Env, name: string): string | undefined {
  const key = env[name]?.trim() || undefined
  if (key && key.length < 32) throw new ConfigError(`${name} must be at least 32 characters`)
  return key
}

/** `whsec_<base64>` as Standard Webhooks writes it, or any string of at least 32 characters (its bytes). */
function secretKeySetting(env: Env): string | undefined {
  const value = env.WEBHOOK_SECRET_KEY?.trim()
  if (!value) return undefined
  if (value.startsWith('whsec_')) {
    try {
      secretKeyBytes(value)
      return value
    } catch (error) {
      throw new ConfigError(`WEBHOOK_SECRET_KEY: ${(error as Error).message}`, { cause: error })
    }
  }
  if (Buffer.byteLength(value) < 32) throw new ConfigError(`WEBHOOK_SECRET_KEY must be whsec_<base64 of at least ${MIN_SECRET_BYTES} bytes> or at least 32 characters`)
  return formatSecret(Buffer.from(value))
}
