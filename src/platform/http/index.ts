/**
 * The HTTP kit of every server: uWebSockets.js replies, `/ready` and `/metrics` answers, and for node:http
 * servers a router, a capped body reader, listening, replies and server-sent events; the parts both
 * OpenAPI documents are written with.
 */
export * from './client-address.js'
export * from './content-negotiation.js'
export * from './event-stream.js'
export * from './listen-node-http.js'
export * as openApi from './openapi-parts.js'
export * from './operator-endpoints.js'
export * from './read-body.js'
export * from './remote-address.js'
export * from './replies.js'
export * from './respond.js'
export * from './serve-routes.js'
export * from './problem-error.js'
