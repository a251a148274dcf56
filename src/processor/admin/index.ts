/**
 * The operator's commands of `npm run admin`, run against production as well as the devnet: the CA and
 * webhook-secret commands, the contract's owner operations (sent, proposed for a Safe or a hardware
 * wallet, or executed through a Safe) and the relayer's runway. Here, not in devnet/, because an operator
 * needs them wherever the processor runs.
 */
export * from './ca-commands.js'
export * from './webhook-commands.js'
export * from './owner-commands.js'
export * from './owner-operations.js'
export * from './relayer-command.js'
export * from './sign-safe-tx.js'
