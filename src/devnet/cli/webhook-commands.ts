/**
 * The webhook commands of `npm run admin` (PROCESSOR.md §4). They work on the processor database
 * directly (DATABASE_URL, or the embedded one in EMBEDDED_POSTGRES_DIR when no other process runs it)
 * and need no chain or deployment file. Every delivery worker sees a rotation at once (NOTIFY).
 */
import { createSecretBox, merchantWebhookSecrets, openSecretBox, SecretKeyMismatchError, type SecretSealer } from '../../processor/webhooks/index.js'
import { deriveMerchantSecret } from '../../processor/webhooks/index.js'
import { databaseOptionsFromEnv, newWebhookEncryptionKeyFromEnv, webhookKeyOptionsFromEnv } from '../../config/index.js'
import { ConfigError, type Env } from '../../config/index.js'
import { findMerchant, listMerchants } from '../../processor/db/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { resealWebhookSecrets, rotateWebhookSecret } from '../../processor/db/index.js'
import { createLogger } from '../../platform/observability/index.js'
import { numberFlag } from '../../platform/cli/index.js'

export const webhookCommandNames = ['rotate-webhook-secret', 'webhook-secret', 'reencrypt-webhook-secrets'] as const
export type WebhookCommand = (typeof webhookCommandNames)[number]

export const webhookCommandOptions = {
  'overlap-hours': { type: 'string' },
} as const

export const webhookCommandUsage = `Webhooks (on the processor database; no deployment needed):
  rotate-webhook-secret [--overlap-hours <n>]
                                sign with a new secret from now on and keep the current ones for n more
                                hours (24; 0 = stop them now); prints every merchant's new secret
  webhook-secret <merchantId>   the merchant's live webhook secrets (what it verifies with), newest first
  reencrypt-webhook-secrets     encrypt every stored webhook secret under NEW_WEBHOOK_ENCRYPTION_KEY, in one
                                transaction (a second run changes nothing); then restart the checkout
                                engines with WEBHOOK_ENCRYPTION_KEY set to the new key
Environment: DATABASE_URL (else the embedded PostgreSQL in EMBEDDED_POSTGRES_DIR, .data/postgres, which
must not be running in another process); WEBHOOK_ENCRYPTION_KEY as the delivery workers have it (on
chain 31337 without it, the local one in WEBHOOK_DATA_DIR); NEW_WEBHOOK_ENCRYPTION_KEY (at least 32
characters) for reencrypt-webhook-secrets.`

export const isWebhookCommand = (command: string | undefined): command is WebhookCommand => webhookCommandNames.includes(command as WebhookCommand)

export async function runWebhookCommand(command: WebhookCommand, args: string[], values: { 'overlap-hours'?: string }, env: Env = process.env): Promise<void> {
  const sealer = await openSecretBox(webhookKeyOptionsFromEnv(env))
  const newSealer = command === 'reencrypt-webhook-secrets' ? createSecretBox(newWebhookEncryptionKeyFromEnv(env)) : undefined
  const db = await openDatabase(databaseOptionsFromEnv(env), createLogger('warn'))
  try {
    if (command === 'rotate-webhook-secret') await rotate(db, sealer, numberFlag(values['overlap-hours'], 'overlap-hours', 24, 0, 24 * 365))
    else if (newSealer) await reencrypt(db, sealer, newSealer)
    else await showSecrets(db, sealer, args[0])
  } finally {
    await db.close()
  }
}

async function rotate(db: Database, sealer: SecretSealer, overlapHours: number): Promise<void> {
  const { secret, replaced } = await rotateWebhookSecret(db, sealer, { overlapHours })
  const until = replaced[0]?.expiresAt
  console.log(`webhook secret ${secret.id} signs from now on${until ? `; the previous ${replaced.length === 1 ? 'one signs' : `${replaced.length} sign`} too until ${until.toISOString()}` : ''}.`)
  console.log('Each merchant installs its new secret beside its current one:')
  for (const merchant of await listMerchants(db.pool)) console.log(`${merchant.id}  ${deriveMerchantSecret(secret.secret, merchant.id)}  ${merchant.name}`)
}

async function reencrypt(db: Database, from: SecretSealer, to: SecretSealer): Promise<void> {
  const { resealed, already } = await resealWebhookSecrets(db, from, to).catch((error: unknown) => {
    if (!(error instanceof SecretKeyMismatchError)) throw error
    throw new ConfigError(`WEBHOOK_ENCRYPTION_KEY is not the key the secrets are under (${error.message}); nothing was changed`, { cause: error })
  })
  console.log(`${resealed} webhook secret${resealed === 1 ? '' : 's'} re-encrypted under the new key${already > 0 ? `, ${already} already under it` : ''}.`)
  if (resealed > 0) console.log('Restart every checkout engine with WEBHOOK_ENCRYPTION_KEY set to the new key; until then they sign with the secrets they hold.')
}

async function showSecrets(db: Database, sealer: SecretSealer, merchantId: string | undefined): Promise<void> {
  if (!merchantId) throw new ConfigError('<merchantId> is required (--help)')
  if (!(await findMerchant(db.pool, merchantId))) throw new ConfigError(`no merchant ${merchantId}`)
  for (const { secret, expiresAt } of await merchantWebhookSecrets(db.pool, sealer, merchantId)) {
    console.log(`${secret}  ${expiresAt ? `until ${expiresAt.toISOString()}` : 'current'}`)
  }
}
