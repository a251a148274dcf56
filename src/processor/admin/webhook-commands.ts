/**
 * The webhook commands of `npm run admin` (PROCESSOR.md §4). They work on the processor database
 * directly (DATABASE_URL, or the embedded one in EMBEDDED_POSTGRES_DIR when no other process runs it)
 * and need no chain or deployment file. Every delivery worker sees a rotation at once (NOTIFY).
 */
import type { Env } from '../../config/index.js'
import { webhookCommandNames, type WebhookCommand } from './webhook-command-names.js'

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

/**
 * The database driver and the webhook modules load when a webhook command runs (webhook-command-run.ts):
 * about 0.3 CPU-s that `npm run admin -- info` and the other commands need not pay.
 */
export async function runWebhookCommand(command: WebhookCommand, args: string[], values: { 'overlap-hours'?: string }, env: Env = process.env): Promise<void> {
  return (await import('./webhook-command-run.js')).runWebhookCommand(command, args, values, env)
}
