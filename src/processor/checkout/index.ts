/**
 * The checkout engine (PROCESSOR.md §4): the merchant API over mutual TLS, reconciliation of charges with
 * the explorer's settlements, and (in `webhooks/`) the webhook delivery. The widget uses the
 * payment-page token helpers from here; the charge JSON and state machine are in `charges/`.
 */
export { startCheckout, type CheckoutServices, type RunningCheckout } from './start-checkout.js'
export { hashEphemeralToken, issueEphemeralToken, EPHEMERAL_TOKEN_TTL_MS } from './api/ephemeral-token.js'
export * from './api/charge-terms.js'
export { checkoutOpenApi } from './api/openapi.js'
export { chargeFromPaymentLink, linkRefusal, type LinkChargeOutcome, type LinkChargeSettings, type LinkRefusal } from './api/payment-link-charges.js'
export { paymentLinkStatus, type PaymentLinkStatus } from './api/payment-link-json.js'
// The request and answer shapes of the merchant API, for its typed client (processor/merchant-client).
export type { CreateChargeRequest } from './api/charge-service.js'
export type { ChargeFilterQuery } from './api/charge-filter.js'
export type { CreateRefundRequest } from './api/refund-service.js'
export type { RotateWebhookSecretRequest, WebhookEndpointJson, WebhookSecretRotationJson } from './api/webhook-endpoint-service.js'
export type { CreatePaymentLinkRequest } from './api/payment-link-service.js'
export type { PaymentLinkJson } from './api/payment-link-json.js'
export type { RefundFilterQuery } from './api/charge-filter.js'
