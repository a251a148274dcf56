/** `/ready` and `/metrics` (platform/http operator-endpoints) as routes of a `serveRoutes` server. */
import { metricsReply, readyReply, sendReply, type ReadinessCheck } from '../http/index.js'
import type { Metrics } from '../observability/index.js'
import type { Route } from './serve-routes.js'

export function operatorRoutes({ ready, metrics }: { ready: ReadinessCheck; metrics: Metrics }): Route[] {
  return [
    { method: 'GET', url: '/ready', handle: async ({ res }) => sendReply(res, await readyReply(ready)) },
    { method: 'GET', url: '/metrics', handle: ({ res }) => sendReply(res, metricsReply(metrics)) },
  ]
}
