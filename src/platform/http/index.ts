/**
 * The HTTP kit of every server: uWebSockets.js replies, `/ready` and `/metrics` answers, for the small
 * services' fastify servers (platform/route-server) node replies and server-sent events, and the parts both
 * OpenAPI documents are written with.
 */
export * from './client-address.js'
export * from './content-negotiation.js'
export * from './event-stream.js'
export * from './listen-uws.js'
export * as openApi from './openapi-parts.js'
export * from './operator-endpoints.js'
export * from './remote-address.js'
export * from './replies.js'
export * from './respond.js'
export * from './problem-error.js'
