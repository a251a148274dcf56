/**
 * What the command-line scripts share: the local deployment, the CA and webhook commands, and the
 * contract's owner operations (sent, proposed for a Safe or a hardware wallet, or executed through a Safe).
 */
export * from './ca-commands.js'
export * from './local-deployment.js'
export * from './webhook-commands.js'
export * from './owner-commands.js'
export * from './owner-operations.js'
export * from './relayer-command.js'
export * from './sign-safe-tx.js'
