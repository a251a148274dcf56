/**
 * What every server answers its operator besides `/health`: `GET /ready` — 200 `{ "status": "ready" }`
 * while the piece can do its work, a 503 problem naming what stops it otherwise — and `GET /metrics` in
 * the Prometheus text format 0.0.4. Both are `Reply` values, so the uWebSockets.js, node:http and
 * fastify servers send the same bytes; route-server's `operatorRoutes` serves them there.
 */
import type { Metrics } from '../observability/index.js'
import { json, problemReply, type Reply } from './replies.js'

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
