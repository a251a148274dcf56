/**
 * The explorer's public interfaces on one uWebSockets.js app: REST (`rest/`), and the WebSocket and SSE
 * live feeds (`live/`), and the web page for browsers (`web/`).
 */
export * from './guard-routes.js'
export * from './live/index.js'
export * from './rest/page-cache.js'
export * from './rest/register-rest.js'
export * from './rest/openapi.js'
export { exportCounts } from './rest/register-export.js'
export * from './web/register-web.js'
export { loadWebAssets } from './web/web-asset-source.js'
export { serializeWebAssets } from './web/web-assets.js'
export * from './register-api.js'
export * from './listen-app.js'
