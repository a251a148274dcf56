/**
 * What every server answers its operator besides `/health`: `GET /ready` — 200 `{ "status": "ready" }`
 * while the piece can do its work, a 503 problem naming what stops it otherwise — and `GET /metrics` in
 * the Prometheus text format 0.0.4. Both are `Reply` values, so the uWebSockets.js, node:http and
 * fastify servers send the same bytes; `operatorRoutes` adds them to a `serveRoutes` server.
 */
import type { Metrics } from '../observability/index.js'
import { json, problemReply, type Reply } from './replies.js'
import { sendReply } from './respond.js'
import type { Route } from './serve-routes.js'

export const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/** What keeps the piece from doing its work, in one sentence; undefined when nothing does. */
export type ReadinessCheck = () => Promise<string | undefined> | string | undefined

/** Probes must see the state now, never a cached answer. */
const NO_STORE = { 'cache-control': 'no-store' }

export async function readyReply(check: ReadinessCheck): Promise<Reply> {
  const notReady = await check()
  return notReady === undefined ? { ...json('{"status":"ready"}'), headers: NO_STORE } : problemReply(503, notReady, undefined, NO_STORE)
}

export const metricsReply = (metrics: Metrics): Reply => ({ status: 200, body: metrics.render(), contentType: METRICS_TYPE, headers: NO_STORE })

export function operatorRoutes({ ready, metrics }: { ready: ReadinessCheck; metrics: Metrics }): Route[] {
  return [
    { method: 'GET', path: /^\/ready$/, handle: async ({ res }) => sendReply(res, await readyReply(ready)) },
    { method: 'GET', path: /^\/metrics$/, handle: ({ res }) => sendReply(res, metricsReply(metrics)) },
  ]
}
