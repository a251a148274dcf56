/**
 * Ports for the servers we start ourselves, and the `fetch` our JSON-RPC calls go through.
 */
export * from './find-free-port.js'
export * from './rpc-fetch.js'
