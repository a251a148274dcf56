/**
 * The flags of the devnet and of the demo traffic, shared by `npm run devnet`, `npm run traffic` and
 * `npm start`; light, like platform/cli, so that `--help` is quick.
 */
export * from './devnet-flags.js'
export * from './traffic-flags.js'
