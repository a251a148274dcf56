/**
 * The checkout engine (PROCESSOR.md §4): the merchant API over mutual TLS, reconciliation of charges with
 * the explorer's settlements, and (in `webhooks/`) the webhook delivery. The widget uses the charge
 * JSON and the payment-page token helpers from here.
 */
export { startCheckout, type CheckoutServices, type RunningCheckout } from './start-checkout.js'
export { renderCharge, widgetUrlOf, type ChargeJson, type PaymentJson } from './api/render-charge.js'
export { hashEphemeralToken, issueEphemeralToken, EPHEMERAL_TOKEN_TTL_MS } from './api/ephemeral-token.js'
