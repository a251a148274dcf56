/**
 * The merchant API serves only what its OpenAPI document (openapi.ts) describes, and describes only what
 * it serves: every route fastify registers is recorded (`onRoute`), and the app refuses to start when a
 * route has no operation in the document or an operation has no route. A route cannot exist without its
 * documentation, as the explorer's route table ensures for its uWS routes.
 */
import type { FastifyInstance } from 'fastify'
import { BaseError } from '../../../errors/index.js'

/** `GET /api/v1/charges/:id` in fastify's form → `GET /api/v1/charges/{id}` in OpenAPI's. */
const documentedPath = (url: string) => url.replace(/:(\w+)(\([^)]*\))?/g, '{$1}')

/** The operations of a document as `METHOD /path`. */
export function documentedOperations(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
}

/** What differs between the routes served and the operations documented, one line each; empty when they agree. */
export function undocumentedRoutes(served: readonly string[], documented: readonly string[]): string[] {
  const documentedSet = new Set(documented)
  const servedSet = new Set(served)
  return [
    ...[...servedSet].filter((route) => !documentedSet.has(route)).map((route) => `${route} is served but not in the OpenAPI document`),
    ...documented.filter((operation) => !servedSet.has(operation)).map((operation) => `${operation} is in the OpenAPI document but not served`),
  ]
}

/** Records the app's routes from now on and checks them against `documented` when the app is ready. */
export function requireDocumentedRoutes(app: FastifyInstance, documented: readonly string[]): void {
  const served: string[] = []
  app.addHook('onRoute', (route) => {
    // fastify adds a HEAD beside each GET by itself: the document's GET covers it.
    for (const method of [route.method].flat()) if (method !== 'HEAD') served.push(`${method} ${documentedPath(route.url)}`)
  })
  app.addHook('onReady', async () => {
    const differences = undocumentedRoutes(served, documented)
    if (differences.length > 0) throw new BaseError(`the merchant API and its OpenAPI document differ: ${differences.join('; ')}`, { details: { differences } })
  })
}
