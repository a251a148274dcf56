/**
 * The explorer's public interfaces on one uWebSockets.js app: REST (`rest/`), and the WebSocket and SSE
 * live feeds (`live/`).
 */
export * from './guard-routes.js'
export * from './live/index.js'
export * from './rest/page-cache.js'
export * from './rest/register-rest.js'
export * from './rest/openapi.js'
