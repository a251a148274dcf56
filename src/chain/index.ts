/**
 * The chain as every piece talks to it: the contracts' ABIs, a viem client over one or several nodes, a transaction sender with
 * local nonces, the configuration directory read from the contract, payments sent straight to it, the
 * relayer's runway, and a Safe's transactions (for administering the contract through a multisig).
 */
export * from './abi/settlement-abi.js'
export * from './abi/stablecoin-abi.js'
export * from './create-chain-client.js'
export * from './directory/read-directory.js'
export * from './directory/watch-directory.js'
export * from './nodes/check-chain-id.js'
export * from './nodes/failover-transport.js'
export * from './payments/buy-acquiring-pack.js'
export * from './payments/permit-tracker.js'
export * from './payments/send-payment.js'
export * from './relayer/runway.js'
export * from './safe/index.js'
export * from './tx/create-tx-sender.js'
export * from './tx/native-signer.js'
