/**
 * Each merchant's webhook signing secret, derived from the processor's master secrets (the rows of
 * `webhook_secrets`): HMAC-SHA256(master key, "webhook-secret:" + merchant id), in the Standard Webhooks
 * form `whsec_<base64>`. The masters stay global — WEBHOOK_SECRET_KEY seeds one, a rotation replaces them
 * for everyone, as PROCESSOR.md §4 reads — yet no two merchants share a key, so a merchant holding its
 * own secret cannot sign a webhook another merchant would accept. A master never leaves the processor.
 */
import { createHmac } from 'node:crypto'
import { formatSecret, secretKeyBytes } from '../../config/index.js'

/** The key that signs `merchantId`'s webhooks under one master secret. */
export function merchantKey(masterSecret: string, merchantId: string): Buffer {
  return createHmac('sha256', secretKeyBytes(masterSecret)).update(`webhook-secret:${merchantId}`).digest()
}

/** What the merchant installs to verify its webhooks (one per live master secret). */
export const deriveMerchantSecret = (masterSecret: string, merchantId: string) => formatSecret(merchantKey(masterSecret, merchantId))
