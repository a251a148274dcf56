/**
 * What the command-line scripts share: the local deployment, the CA and webhook commands.
 */
export * from './ca-commands.js'
export * from './local-deployment.js'
export * from './webhook-commands.js'
