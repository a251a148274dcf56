/**
 * The HTTP kit of every server: uWebSockets.js replies, `/ready` and `/metrics` answers, and for the
 * small services' fastify servers (platform/route-server) node replies and server-sent events.
 */
export * from './client-address.js'
export * from './content-negotiation.js'
export * from './event-stream.js'
export * from './listen-uws.js'
export * from './operator-endpoints.js'
export * from './remote-address.js'
export * from './replies.js'
export * from './respond.js'
export * from './problem-error.js'
