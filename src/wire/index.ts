/**
 * The formats both wings speak: settlements, problem bodies, gateway messages and envelopes, the live
 * feed's messages, payment requests and their typed data, the deployment file's shape. Browser-safe: no
 * Node module here.
 */
export * from './deployment.js'
export * from './envelope.js'
export * from './gateway-messages.js'
export * from './live-feed.js'
export * from './order-reference.js'
export * from './payment-request.js'
export * from './problem.js'
export * from './settlement.js'
export * from './sign-payment.js'
export * from './sign-permit-pair.js'
export * from './typed-data.js'
export * from './display-amount.js'
export * from './csv-cell.js'
export * from './base-error.js'
