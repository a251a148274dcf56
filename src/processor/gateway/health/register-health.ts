/**
 * `GET /health` (PROCESSOR.md §2): 200 `{ status: "ok", connections, relayer }` while the relayer can pay
 * for transactions (or no submitter has reported yet: `relayer: null`), 503 `{ status: "degraded",
 * relayer: { address, balance, minimum } }` while the relayer guard holds new submissions back, with
 * `updatedAt` and `stale: true` when no submitter has reported for `GATEWAY_RELAYER_STALE_MS` (none is
 * alive to send them). Anything else is a 404 problem.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import { json, problemReply, reply } from '../../../platform/http/index.js'
import type { RelayerMonitor } from '../pushes/relayer-monitor.js'

export function registerHealth(app: TemplatedApp, relayer: RelayerMonitor, connections: () => number): void {
  app.get('/health', (res) => {
    const status = relayer.current()
    if (status && relayer.unavailable()) {
      const stale = status.stale ? { updatedAt: status.updatedAt, stale: true } : {}
      const body = { status: 'degraded', connections: connections(), relayer: { address: status.relayer, balance: status.balance, minimum: status.minimum, ...stale } }
      return reply(res, json(JSON.stringify(body), 503))
    }
    const body = {
      status: 'ok',
      connections: connections(),
      relayer: status ? { address: status.relayer, balance: status.balance, minimum: status.minimum, updatedAt: status.updatedAt } : null,
    }
    reply(res, json(JSON.stringify(body)))
  })
  app.any('/*', (res) => reply(res, problemReply(404, 'the wallet gateway serves the WebSocket /ws and GET /health')))
}
