/**
 * The gateway's operator endpoints. `GET /health` (PROCESSOR.md §2): 200 `{ status: "ok", connections,
 * relayer }` while the relayer can pay for transactions (or no submitter has reported yet: `relayer:
 * null`), 503 `{ status: "degraded", relayer: { address, balance, minimum } }` while the relayer guard
 * holds new submissions back, with `updatedAt` and `stale: true` when no submitter has reported for
 * `GATEWAY_RELAYER_STALE_MS` (none is alive to send them). `GET /ready`: 200 while submissions can be
 * taken — the relayer is available and the database answers — else a 503 problem saying why.
 * `GET /metrics`: connections, the relayer's availability and the process. Anything else is a 404 problem.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { Database } from '../../db/index.js'
import { databaseUnavailable } from '../../db/index.js'
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { json, metricsReply, problemReply, readyReply, reply, replyLater } from '../../../platform/http/index.js'
import type { RelayerMonitor } from '../pushes/relayer-monitor.js'

export interface HealthContext {
  relayer: RelayerMonitor
  connections(): number
  db: Database
  metrics: Metrics
  log: Logger
}

export function registerHealth(app: TemplatedApp, { relayer, connections, db, metrics, log }: HealthContext): void {
  metrics.collected('connections', 'Open wallet connections on this gateway', connections)
  metrics.collected('relayer_available', '1 while submissions are taken, 0 while the relayer guard holds them or no submitter reports', () =>
    relayer.unavailable() === undefined ? 1 : 0,
  )
  app.get('/health', (res) => {
    const status = relayer.current()
    // Shown only while low: an operator's cue to top up before the hard stop at the minimum.
    const runway = status?.runwayLow ? { runwayPayments: status.runwayPayments } : {}
    if (status && relayer.unavailable()) {
      const stale = status.stale ? { updatedAt: status.updatedAt, stale: true } : {}
      const body = { status: 'degraded', connections: connections(), relayer: { address: status.relayer, balance: status.balance, minimum: status.minimum, ...runway, ...stale } }
      return reply(res, json(JSON.stringify(body), 503))
    }
    const body = {
      status: 'ok',
      connections: connections(),
      relayer: status ? { address: status.relayer, balance: status.balance, minimum: status.minimum, ...runway, updatedAt: status.updatedAt } : null,
    }
    reply(res, json(JSON.stringify(body)))
  })
  app.get('/ready', (res) =>
    replyLater(res, log, () =>
      readyReply(async () => {
        const unavailable = relayer.unavailable()
        if (unavailable) return `${unavailable}: submissions are refused`
        return databaseUnavailable(db.pool)
      }),
    ),
  )
  app.get('/metrics', (res) => reply(res, metricsReply(metrics)))
  app.any('/*', (res) => reply(res, problemReply(404, 'the wallet gateway serves the WebSocket /ws, GET /health, /ready and /metrics')))
}
