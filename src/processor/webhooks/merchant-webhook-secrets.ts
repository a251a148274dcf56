/**
 * What a merchant installs to verify its webhooks right now: its secret under each master secret that
 * signs for it (`merchantSigningSecrets`), newest first, with the time each stops signing (null for the
 * newest). For the admin command and the demo store.
 */
import type { SecretSealer, Sql } from '../db/index.js'
import { liveWebhookSecrets, merchantSigningSecrets } from '../db/index.js'
import { deriveMerchantSecret } from './merchant-secret.js'

export interface MerchantWebhookSecret {
  secret: string
  expiresAt: Date | null
}

export async function merchantWebhookSecrets(sql: Sql, sealer: SecretSealer, merchantId: string): Promise<MerchantWebhookSecret[]> {
  const { secrets } = await liveWebhookSecrets(sql, sealer)
  return merchantSigningSecrets(secrets, merchantId).map((master) => ({ secret: deriveMerchantSecret(master.secret, merchantId), expiresAt: master.expiresAt }))
}
