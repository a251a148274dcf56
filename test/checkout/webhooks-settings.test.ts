/**
 * The pieces of webhook delivery that need no database: settings (WEBHOOK_SECRET_KEY refused or required
 * by chain), the local secret on chain 31337, the backoff's bounds, per-merchant secrets, and the
 * verifying receiver helper accepting any of several secrets.
 */
import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { WebhookVerificationError } from 'standardwebhooks'
import { retryDelayMs } from '../../src/processor/webhooks/backoff.js'
import { deriveMerchantSecret, localSecretKeyPath, readLocalSecretKey, verifyWebhook } from '../../src/processor/webhooks/index.js'
import { resolveWebhookEncryptionKey, resolveWebhookSecretKey } from '../../src/processor/webhooks/local-secret-key.js'
import { secretKeyBytes } from '../../src/config/webhook-secret.js'
import { webhookHeaders } from '../../src/processor/webhooks/sign-webhook.js'
import { webhookKeyOptionsFromEnv, webhookOptionsFromEnv } from '../../src/config/webhook-options.js'
import { generateWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { tempDir } from '../../src/devnet/testing/index.js'

test('settings: defaults, WEBHOOK_SECRET_KEY and WEBHOOK_ENCRYPTION_KEY required off chain 31337 and checked', () => {
  const local = webhookOptionsFromEnv({})
  assert.deepEqual(local, {
    secretKey: undefined,
    encryptionKey: undefined,
    dataDir: '.data/webhooks',
    timeoutMs: 10_000,
    retryWindowMs: 24 * 3_600_000,
    backoffBaseMs: 5_000,
    backoffMaxMs: 3_600_000,
    pollMs: 1_000,
    concurrency: 16,
    slowMs: 1_000,
    slowConcurrency: 64,
    perMerchantConcurrency: 4,
    breakerFailures: 5,
    breakerCooldownMs: 60_000,
    allowInternalTargets: true,
  })
  assert.throws(() => webhookOptionsFromEnv({ WEBHOOK_MERCHANT_CONCURRENCY: '0' }), /^ConfigError: WEBHOOK_MERCHANT_CONCURRENCY must be an integer 1\.\.1000, got "0"$/)
  assert.throws(() => webhookOptionsFromEnv({ CHAIN_ID: '8453' }), /^ConfigError: WEBHOOK_SECRET_KEY is required on chain 8453/)
  const secret = generateWebhookSecret()
  const encryption = { WEBHOOK_ENCRYPTION_KEY: 'an encryption key of at least 32 characters' }
  assert.throws(() => webhookOptionsFromEnv({ CHAIN_ID: '8453', WEBHOOK_SECRET_KEY: secret }), /^ConfigError: WEBHOOK_ENCRYPTION_KEY is required on chain 8453/)
  assert.throws(() => webhookKeyOptionsFromEnv({ WEBHOOK_ENCRYPTION_KEY: 'short' }), /^ConfigError: WEBHOOK_ENCRYPTION_KEY must be at least 32 characters$/)
  const elsewhere = webhookOptionsFromEnv({ CHAIN_ID: '8453', WEBHOOK_SECRET_KEY: secret, ...encryption })
  assert.deepEqual([elsewhere.secretKey, elsewhere.encryptionKey, elsewhere.allowInternalTargets], [secret, encryption.WEBHOOK_ENCRYPTION_KEY, false])
  const passphrase = 'correct horse battery staple, long enough'
  assert.equal(webhookOptionsFromEnv({ CHAIN_ID: '8453', WEBHOOK_SECRET_KEY: passphrase, ...encryption }).secretKey, `whsec_${Buffer.from(passphrase).toString('base64')}`)
  assert.throws(() => webhookOptionsFromEnv({ WEBHOOK_SECRET_KEY: 'too short' }), /WEBHOOK_SECRET_KEY must be whsec_/)
  assert.throws(() => webhookOptionsFromEnv({ WEBHOOK_SECRET_KEY: 'whsec_c2hvcnQ=' }), /WEBHOOK_SECRET_KEY: a webhook secret is whsec_ and the base64 of at least 24 bytes/)
  assert.throws(() => webhookOptionsFromEnv({ WEBHOOK_SECRET_KEY: 'whsec_not base64!!' }), /WEBHOOK_SECRET_KEY: /)
  assert.throws(() => webhookOptionsFromEnv({ WEBHOOK_RETRY_HOURS: '0' }), /WEBHOOK_RETRY_HOURS must be an integer 1\.\./)
  assert.equal(webhookOptionsFromEnv({ WEBHOOK_RETRY_HOURS: '2', WEBHOOK_TIMEOUT_MS: '2500' }).retryWindowMs, 7_200_000)
})

test('on chain 31337 without WEBHOOK_SECRET_KEY / WEBHOOK_ENCRYPTION_KEY local ones are created once (mode 0600) and reused', async () => {
  const dataDir = join(tempDir('webhooks-'), 'nested')
  const first = await resolveWebhookSecretKey({ dataDir })
  assert.equal(secretKeyBytes(first).length, 32)
  assert.equal(statSync(localSecretKeyPath(dataDir)).mode & 0o777, 0o600)
  assert.equal(await resolveWebhookSecretKey({ dataDir }), first)
  assert.equal(readLocalSecretKey(dataDir), first)
  const given = generateWebhookSecret()
  assert.equal(await resolveWebhookSecretKey({ dataDir, secretKey: given }), given)
  const encryptionKey = await resolveWebhookEncryptionKey({ dataDir })
  assert.equal(Buffer.from(encryptionKey, 'base64').length, 32)
  assert.equal(statSync(join(dataDir, 'encryption-key')).mode & 0o777, 0o600)
  assert.equal(await resolveWebhookEncryptionKey({ dataDir }), encryptionKey)
})

test('backoff doubles from the base up to the cap, with a jitter of at most half', () => {
  const settings = { baseMs: 1_000, maxMs: 60_000 }
  assert.deepEqual([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, () => 1)), [1_000, 2_000, 4_000, 8_000])
  assert.deepEqual([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, () => 0)), [500, 1_000, 2_000, 4_000])
  assert.equal(retryDelayMs(7, settings, () => 1), 60_000)
  assert.equal(retryDelayMs(5_000, settings, () => 0.5), 45_000)
  for (let i = 0; i < 100; i++) {
    const delay = retryDelayMs(3, settings)
    assert.ok(delay >= 2_000 && delay <= 4_000)
  }
})

test('each merchant has its own secret under a master secret', () => {
  const master = generateWebhookSecret()
  const a = deriveMerchantSecret(master, 'm_000000000000000000000001')
  assert.equal(a, deriveMerchantSecret(master, 'm_000000000000000000000001'))
  assert.notEqual(a, deriveMerchantSecret(master, 'm_000000000000000000000002'))
  assert.notEqual(a, deriveMerchantSecret(generateWebhookSecret(), 'm_000000000000000000000001'))
  assert.equal(secretKeyBytes(a).length, 32)
})

test('verifyWebhook accepts a request any given secret verifies, and refuses the rest', () => {
  const [current, previous, stranger] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()]
  const merchant = 'm_0123456789abcdef01234567'
  const body = JSON.stringify({ type: 'charge.settled', timestamp: new Date().toISOString(), data: { id: 'ch_1' } })
  const headers = webhookHeaders({ id: 'msg_1', merchantId: merchant, body, secrets: [current, previous] })
  const mine = (master: string) => deriveMerchantSecret(master, merchant)
  assert.deepEqual(verifyWebhook([mine(current)], headers, body), JSON.parse(body))
  assert.deepEqual(verifyWebhook([mine(stranger), mine(previous)], new Headers(headers), Buffer.from(body)), JSON.parse(body))
  assert.throws(() => verifyWebhook([mine(stranger)], headers, body), WebhookVerificationError)
  assert.throws(() => verifyWebhook([], headers, body), WebhookVerificationError)
  assert.throws(() => verifyWebhook([mine(current)], headers, body.replace('ch_1', 'ch_2')), WebhookVerificationError)
  const stale = webhookHeaders({ id: 'msg_1', merchantId: merchant, body, secrets: [current], timestamp: new Date(Date.now() - 10 * 60_000) })
  assert.throws(() => verifyWebhook([mine(current)], stale, body), /too old/)
  assert.throws(() => webhookHeaders({ id: 'msg_1', merchantId: merchant, body, secrets: [] }), /no live webhook secret/)
})
