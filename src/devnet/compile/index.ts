/**
 * Compiling the contracts with solc-js and writing the ABI modules under `src/chain/abi/`.
 */
export * from './compile-contracts.js'
export * from './render-artifacts.js'
