/**
 * Ports for the servers we start ourselves.
 */
export * from './find-free-port.js'
