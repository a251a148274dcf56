/** What the webhook commands (webhook-commands.ts) do, on the processor database. */
import { createSecretBox, merchantWebhookSecrets, openSecretBox, SecretKeyMismatchError, type SecretSealer } from '../webhooks/index.js'
import { deriveMerchantSecret } from '../webhooks/index.js'
import { databaseOptionsFromEnv, newWebhookEncryptionKeyFromEnv, webhookKeyOptionsFromEnv } from '../../config/index.js'
import { ConfigError, type Env } from '../../config/index.js'
import type { WebhookCommand } from './webhook-command-names.js'
import { findMerchant, listMerchants } from '../db/index.js'
import { openDatabase, type Database } from '../db/index.js'
import { resealWebhookSecrets, rotateWebhookSecret } from '../db/index.js'
import { createLogger } from '../../platform/observability/index.js'
import { numberFlag } from '../../platform/cli/index.js'

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
