/**
 * anvil with the contracts deployed and funded accounts (the file describing them: ../deployment/).
 */
export * from './start-devnet.js'
export * from './deploy-devnet.js'
