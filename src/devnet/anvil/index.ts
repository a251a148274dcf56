/**
 * A local anvil chain from the `@foundry-rs/anvil` npm package, on a port it picks itself.
 */
export * from './start-anvil.js'
