/**
 * The demo traffic: signed payments sent straight to the chain or through the wallet gateway.
 */
export * from './print-progress.js'
export * from './run-traffic.js'
export * from './run-wallet-traffic.js'
