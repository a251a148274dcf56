/**
 * The typed client of the merchant API (issue 23): what a merchant's Node server imports to create charges,
 * refunds and payment links, download its reports and manage its webhook endpoint over mutual TLS, and
 * verify the webhooks it receives (the Standard Webhooks verifier of `webhooks/`, not a copy).
 */
export { MerchantClient, DEFAULT_TIMEOUT_MS, type IdempotencyOptions, type ListChargesOptions, type ListRefundsOptions, type MerchantClientOptions, type Page } from './merchant-client.js'
export { readCredentialFiles, type ClientCredentials } from './credentials.js'
export { MerchantApiError, MerchantNetworkError, MerchantTimeoutError, type ProblemDetails } from './errors.js'
export { verifyWebhook, type WebhookRequestHeaders } from '../webhooks/index.js'
export type { ChargeJson, PaymentJson, RefundJson } from '../charges/index.js'
export type { ChargeFilterQuery, CreateChargeRequest, CreatePaymentLinkRequest, CreateRefundRequest, PaymentLinkJson, RefundFilterQuery } from '../checkout/index.js'
export type { RotateWebhookSecretRequest, WebhookEndpointJson, WebhookSecretRotationJson } from '../checkout/index.js'
