/**
 * Deploying the stablecoins and the settlement contract, locally or on a real network.
 */
export * from './deploy-config.js'
export * from './deploy-contracts.js'
export * from './deploy-settlement.js'
