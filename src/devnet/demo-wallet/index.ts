/**
 * A wallet for the demo (chain 31337 only): pays a payment link the way a phone wallet does after
 * scanning the widget's QR code, as a local test payer. Used by the demo store's "demo wallet" button and
 * `npm run wallet`.
 */
export { payAsDemoPayer, type DemoPaymentParams } from './pay-as-demo-payer.js'
export { demoMerchantAccount, demoPayerAccount, assertDemoChain } from './demo-payer.js'
export { fetchPaymentSession, paySession, sessionTokenOf, PaymentLinkError } from './pay-payment-link.js'
export { fetchConfig, fetchTokens, type ListedToken, type ProcessorConfig } from './data-service-client.js'
