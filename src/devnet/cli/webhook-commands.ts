/**
 * The webhook commands of `npm run admin` (PROCESSOR.md §4). They work on the processor database
 * directly (DATABASE_URL, or the embedded one in EMBEDDED_POSTGRES_DIR when no other process runs it)
 * and need no chain or deployment file. Every delivery worker sees a rotation at once (NOTIFY).
 */
import { merchantWebhookSecrets, openSecretBox, type SecretSealer } from '../../processor/webhooks/index.js'
import { deriveMerchantSecret } from '../../processor/webhooks/index.js'
import { databaseOptionsFromEnv, webhookKeyOptionsFromEnv } from '../../config/index.js'
import { ConfigError, type Env } from '../../config/index.js'
import { findMerchant, listMerchants } from '../../processor/db/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { rotateWebhookSecret } from '../../processor/db/index.js'
import { createLogger } from '../../platform/observability/index.js'
import { numberFlag } from '../../platform/cli/index.js'

export const webhookCommandNames = ['rotate-webhook-secret', 'webhook-secret'] as const
export type WebhookCommand = (typeof webhookCommandNames)[number]

export const webhookCommandOptions = {
  'overlap-hours': { type: 'string' },
} as const

export const webhookCommandUsage = `Webhooks (on the processor database; no deployment needed):
  rotate-webhook-secret [--overlap-hours <n>]
                                sign with a new secret from now on and keep the current ones for n more
                                hours (24; 0 = stop them now); prints every merchant's new secret
  webhook-secret <merchantId>   the merchant's live webhook secrets (what it verifies with), newest first
Environment: DATABASE_URL (else the embedded PostgreSQL in EMBEDDED_POSTGRES_DIR, .data/postgres, which
must not be running in another process); WEBHOOK_ENCRYPTION_KEY as the delivery workers have it (on
chain 31337 without it, the local one in WEBHOOK_DATA_DIR).`

export const isWebhookCommand = (command: string | undefined): command is WebhookCommand => webhookCommandNames.includes(command as WebhookCommand)

export async function runWebhookCommand(command: WebhookCommand, args: string[], values: { 'overlap-hours'?: string }, env: Env = process.env): Promise<void> {
  const sealer = await openSecretBox(webhookKeyOptionsFromEnv(env))
  const db = await openDatabase(databaseOptionsFromEnv(env), createLogger('warn'))
  try {
    if (command === 'rotate-webhook-secret') await rotate(db, sealer, numberFlag(values['overlap-hours'], 'overlap-hours', 24, 0, 24 * 365))
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

async function showSecrets(db: Database, sealer: SecretSealer, merchantId: string | undefined): Promise<void> {
  if (!merchantId) throw new ConfigError('<merchantId> is required (--help)')
  if (!(await findMerchant(db.pool, merchantId))) throw new ConfigError(`no merchant ${merchantId}`)
  for (const { secret, expiresAt } of await merchantWebhookSecrets(db.pool, sealer, merchantId)) {
    console.log(`${secret}  ${expiresAt ? `until ${expiresAt.toISOString()}` : 'current'}`)
  }
}
