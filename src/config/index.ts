/**
 * Every piece's options, read from the environment with a fixed precedence (variable, then the devnet
 * deployment on chain 31337, then the default); each bad value is one ConfigError line naming the variable.
 * Also the deployment file itself (read by every piece, written by the devnet and `npm run deploy`).
 */
export * from './ca-options.js'
export * from './chain-settings.js'
export * from './checkout-options.js'
export * from './data-service-options.js'
export * from './database-options.js'
export * from './demo-store-options.js'
export * from './deployment-file.js'
export * from './explorer-options.js'
export * from './gateway-options.js'
export * from './key-setting.js'
export * from './local-deployment.js'
export * from './local-keys.js'
export * from './parse-env.js'
export * from './public-urls.js'
export * from './submitter-options.js'
export * from './trusted-proxies.js'
export * from './webhook-options.js'
export * from './widget-options.js'
export * from './webhook-secret.js'
