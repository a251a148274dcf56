/**
 * The live feeds: one hub fed by the indexer, serving WebSocket `/stream` and SSE `/events/stream`.
 * Register before the REST fallbacks.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { LiveLimits } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { Metrics } from '../../../platform/observability/index.js'
import type { SharedConnections } from '../../../platform/limits/index.js'
import type { TokenCache } from '../../query/index.js'
import type { Store } from '../../store/index.js'
import { LiveHub } from './live-hub.js'
import { registerSse } from './register-sse.js'
import { registerWebSocket } from './register-websocket.js'

export { LiveHub } from './live-hub.js'

export interface LiveContext {
  store: Store
  tokens: TokenCache
  limits: LiveLimits
  metrics: Metrics
  logger: Logger
  publishedEnd?: Buffer
  connections?: SharedConnections
}

export function registerLive(app: TemplatedApp, ctx: LiveContext): LiveHub {
  const hub = new LiveHub({ app, ...ctx })
  const refusals = ctx.metrics.counter('live_refused_total', 'Live client messages and connections refused, by error code')
  registerWebSocket(app, hub, ctx.limits, refusals)
  registerSse(app, hub, ctx.limits, ctx.logger, refusals)
  return hub
}
