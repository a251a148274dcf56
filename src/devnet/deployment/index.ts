/**
 * The deployment file: which contracts and tokens a deployment has, read by every piece that needs them.
 * Apart from local-devnet (which deploys and writes it), so that reading it loads nothing of deploying.
 */
export * from './deployment-file.js'
