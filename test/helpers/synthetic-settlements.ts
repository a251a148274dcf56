/**
 * Left only for the store's unit tests (src/explorer/store/*.test.ts), which the store rewrite of issue 39
 * is editing at the same time: the synthetic settlements live in src/devnet/testing/. When that lands, the
 * store's tests import src/devnet/testing/index.ts like every other test, and this file goes.
 */
export { syntheticPayer, syntheticSteps } from '../../src/devnet/testing/index.js'
