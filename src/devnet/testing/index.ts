/**
 * What the tests, the benchmarks and the soak, image-check and screenshot scripts share to run the product
 * locally: a chain with settlements (anvil), explorers, an embedded PostgreSQL per test, the CA, the
 * submitter, the checkout fixture, a browser, relays and proxies that fail on demand, synthetic settlements.
 * Here rather than in test/ so that bench/ and scripts/ do not reach into the test suite, and in src/devnet
 * rather than a folder of its own so that the layering test holds it to the rules (it enters every piece
 * through its index.ts, and the others enter it through this file). Nothing in production imports it.
 */
export * from './browser-helpers.js'
export * from './checkout-fixture.js'
export * from './explorer-relay.js'
export * from './store-content.js'
export * from './local-chain.js'
export * from './payment-requests.js'
export * from './purchase-world.js'
export * from './repo-root.js'
export * from './rpc-proxy.js'
export * from './script.js'
export * from './scripted-chain.js'
export * from './scripted-explorer.js'
export * from './synthetic-settlements.js'
export * from './temp-dir.js'
export * from './test-ca.js'
export * from './test-explorer.js'
export * from './test-submitter.js'
