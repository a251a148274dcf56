/**
 * The settlement explorer (SPEC.md): indexer → store → query → api, started as one piece.
 */
export * from './start-explorer.js'
export { explorerOpenApi } from './api/index.js'
