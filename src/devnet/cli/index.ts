/**
 * What the command-line scripts share: flags, the local deployment, the CA and webhook commands.
 */
export * from './ca-commands.js'
export * from './devnet-flags.js'
export * from './flags.js'
export * from './local-deployment.js'
export * from './run-cli.js'
export * from './traffic-flags.js'
export * from './webhook-commands.js'
