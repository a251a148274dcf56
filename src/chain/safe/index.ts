/**
 * Administering a contract through a Safe multisig: the Safe's ABI, the SafeTx its owners sign, and the
 * Safe Transaction Builder batch file an owner can load in the Safe's web app.
 */
export * from './safe-abi.js'
export * from './safe-tx.js'
export * from './tx-builder-batch.js'
