/**
 * Once the explorer stops, kept-alive connections may still carry requests to its routes (uWS has no
 * way to close them all here), and those must not reach a closed store. Routes registered through
 * the guarded app answer 503 and close the connection instead.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocketBehavior } from 'uWebSockets.js'
import { PROBLEM_TYPE } from '../../platform/http/index.js'
import { problem } from '../../wire/index.js'

type Handler = (res: HttpResponse, req: HttpRequest) => void

function refuse(res: HttpResponse): void {
  res.cork(() => {
    res.writeStatus('503 Service Unavailable').writeHeader('content-type', PROBLEM_TYPE)
    res.end(JSON.stringify(problem(503, 'the explorer is shutting down')), true)
  })
}

export function guardRoutes(app: TemplatedApp, isClosed: () => boolean): TemplatedApp {
  const guard = (handler: Handler): Handler => (res, req) => (isClosed() ? refuse(res) : handler(res, req))
  return new Proxy(app, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property) as unknown
      if (typeof value !== 'function') return value
      if (property === 'get' || property === 'any' || property === 'options') {
        return (pattern: string, handler: Handler) => {
          value.call(target, pattern, guard(handler))
          return receiver
        }
      }
      if (property === 'ws') {
        return (pattern: string, behavior: WebSocketBehavior<unknown>) => {
          const upgrade = behavior.upgrade
          value.call(target, pattern, upgrade ? { ...behavior, upgrade: (res: HttpResponse, req: HttpRequest, context: unknown) => (isClosed() ? refuse(res) : upgrade(res, req, context as never)) } : behavior)
          return receiver
        }
      }
      return value.bind(target)
    },
  })
}
