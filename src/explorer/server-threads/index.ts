/**
 * SERVER_THREADS: more threads answering on the explorer's port, fed by the main thread's indexer.
 */
export * from './server-threads.js'
export type { ServerThreadData } from './thread-messages.js'
