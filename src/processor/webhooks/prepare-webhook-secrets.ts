/**
 * The signing secrets, ready before the first delivery: secrets still stored in the clear are sealed,
 * WEBHOOK_SECRET_KEY seeds an empty table (and only that: a key differing from the stored secrets is
 * reported, not used), and the cache every attempt signs from is loaded.
 */
import type { WebhookOptions } from '../../config/index.js'
import { sealStoredWebhookSecrets, seedWebhookSecret, type ProcessorServices } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { resolveWebhookSecretKey } from './local-secret-key.js'
import { openSecretBox } from './secret-box.js'
import { createSecretCache, type SecretCache } from './secret-cache.js'

export async function prepareWebhookSecrets(options: WebhookOptions, db: ProcessorServices['db'], log: Logger): Promise<SecretCache> {
  const sealer = await openSecretBox(options)
  const sealed = await sealStoredWebhookSecrets(db, sealer)
  if (sealed > 0) log.info('webhook secrets stored in the clear are now encrypted', { count: sealed })
  const seeded = await seedWebhookSecret(db, await resolveWebhookSecretKey(options), sealer)
  if (seeded === 'seeded') log.info('webhook secret seeded')
  else if (seeded === 'differs' && options.secretKey) {
    log.warn('WEBHOOK_SECRET_KEY is none of the stored webhook secrets and is not used: it only seeds an empty table; the stored secrets keep signing (replace them with npm run admin -- rotate-webhook-secret)')
  }
  return createSecretCache(db.pool, sealer)
}
