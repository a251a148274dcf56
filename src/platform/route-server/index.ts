/**
 * The fastify server of the small services (the payment pages, the demo store, the CA's admin API): a
 * route table served with 405s, body caps, a refusal before the body and stop closing every connection.
 * Apart from platform/http so that the explorer's uWebSockets.js servers never load fastify.
 */
export * from './operator-routes.js'
export * from './serve-routes.js'
