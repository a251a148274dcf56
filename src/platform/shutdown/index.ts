/**
 * Stopping a command cleanly on Ctrl-C or SIGTERM.
 */
export * from './on-shutdown.js'
export * from './own-session.js'
