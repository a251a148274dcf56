/**
 * Webhook delivery for the checkout engine (PROCESSOR.md §4): the delivery worker every replica runs,
 * the merchant API routes, signing-secret rotation and each merchant's secrets, and the verifying
 * receiver the demo store and the tests use.
 */
export { startWebhookDelivery, type WebhookDelivery, type WebhookDeliveryServices } from './start-webhook-delivery.js'
export { eventParams, listQuery, webhookRoutes, type WebhookRoutesOptions } from './routes.js'
export { verifyWebhook, type WebhookRequestHeaders } from './verify-webhook.js'
export { deriveMerchantSecret } from './merchant-secret.js'
export { merchantWebhookSecrets, type MerchantWebhookSecret } from './merchant-webhook-secrets.js'
export { localSecretKeyPath, readLocalSecretKey } from './local-secret-key.js'
export { rotateWebhookSecret, type Rotation, type SecretSealer } from '../db/index.js'
export { MAX_WEBHOOK_URL_LENGTH, parseWebhookUrl } from './webhook-target.js'
export { createSecretBox, openSecretBox, SecretKeyMismatchError } from './secret-box.js'
