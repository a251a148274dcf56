/**
 * The app the explorer's documented routes are registered on: a `get` or `ws` whose route is not in the
 * route table (explorer-routes.ts) throws at start, and `assertServed` throws for a table route nobody
 * registered. Together with the document being generated from the table, a route cannot be served
 * without its documentation, nor documented without being served. The web page's files and the
 * fallbacks (405, 404, the CORS preflight) are registered on the plain app: they are not operations.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import { BaseError } from '../../../errors/index.js'
import { EXPLORER_ROUTES, type Endpoint } from './explorer-routes.js'

/** A programming error: the route table and the registrations disagree. */
export class UndocumentedRoute extends BaseError {
  override name = 'UndocumentedRoute'
}

export interface DocumentedApp {
  /** The app to register table routes on; every other method is the plain app's. */
  app: TemplatedApp
  /** Throws unless every route of the table has been registered. */
  assertServed(): void
}

const REGISTRARS: Record<string, string> = { get: 'GET', ws: 'WS', any: 'ANY', options: 'OPTIONS', post: 'POST', put: 'PUT', del: 'DELETE', patch: 'PATCH', head: 'HEAD', connect: 'CONNECT', trace: 'TRACE' }

export function documentedApp(app: TemplatedApp): DocumentedApp {
  const served = new Set<string>()
  const proxy: TemplatedApp = new Proxy(app, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property) as unknown
      if (typeof value !== 'function') return value
      const method = typeof property === 'string' ? REGISTRARS[property] : undefined
      if (!method) return value.bind(target)
      return (pattern: string, handler: unknown) => {
        const endpoint = `${method} ${pattern}`
        if (!Object.hasOwn(EXPLORER_ROUTES, endpoint)) {
          throw new UndocumentedRoute(`${endpoint} is not in the explorer's route table (explorer-routes.ts): add its OpenAPI operation there`, { details: { endpoint } })
        }
        if (served.has(endpoint)) throw new UndocumentedRoute(`${endpoint} is registered twice`, { details: { endpoint } })
        served.add(endpoint)
        value.call(target, pattern, handler)
        return receiver
      }
    },
  })
  return {
    app: proxy,
    assertServed() {
      const missing = (Object.keys(EXPLORER_ROUTES) as Endpoint[]).filter((endpoint) => !served.has(endpoint))
      if (missing.length > 0) throw new UndocumentedRoute(`documented but not served: ${missing.join(', ')}`, { details: { missing } })
    },
  }
}
