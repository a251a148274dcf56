/**
 * anvil with the contracts deployed and funded accounts, and the deployment file describing it.
 */
export * from './start-devnet.js'
export * from './deployment-file.js'
export * from './deploy-devnet.js'
