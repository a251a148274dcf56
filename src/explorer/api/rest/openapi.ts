/**
 * The explorer's API as an OpenAPI 3.1 document, served at `GET /openapi.json`: its paths are the route
 * table (explorer-routes.ts) — every route the server registers, each with its operation — and its
 * components the shared parameters, problem answers and schemas (openapi-components.ts).
 * test/openapi/explorer.test.ts validates the document and checks real answers against its schemas.
 */
import { explorerComponents } from './openapi-components.js'
import { EXPLORER_ROUTES, type Endpoint } from './explorer-routes.js'

/** `GET /events/:txHash` → `/events/{txHash}`; `WS /stream` is the GET of its upgrade. */
export const documentedPath = (endpoint: Endpoint) => endpoint.replace(/^\S+ /, '').replace(/:(\w+)/g, '{$1}')

export function explorerOpenApi(version: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Settlement explorer',
      version,
      description: [
        'A public, read-only index of one settlement contract’s `PermittedTransfer` events: REST pages, lookups and statistics, and live feeds over Server-Sent Events and WebSocket.',
        '',
        'Every answer carries `Access-Control-Allow-Origin: *`; `OPTIONS` on any path answers the CORS preflight (204). Only `GET` is served: any other method on any path answers **405** with `Allow: GET` (`#/components/responses/MethodNotAllowed`), and an unknown path **404** (`#/components/responses/NotFound`).',
        '',
        'Errors are `application/problem+json` (RFC 9457) with `param` naming the offending query parameter. Unknown and repeated query parameters are refused (400). All hex in answers is lowercase; hex in input is accepted in any case.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    paths: Object.fromEntries(Object.entries(EXPLORER_ROUTES).map(([endpoint, operation]) => [documentedPath(endpoint as Endpoint), { get: operation }])),
    components: explorerComponents,
  }
}
