/**
 * The gateway's WebSocket route `/ws`. uWS cuts frames over the hard limit (16 × the soft limit) without
 * a close frame; pings every 120 s find dead peers (protocol idleness is the registry's sweep, with its
 * own close code). A wallet that stops reading while 1 MiB of answers pile up is disconnected by uWS.
 * The upgrade is refused with a problem body past GATEWAY_MAX_CONNECTIONS (503) and past
 * GATEWAY_MAX_CONNECTIONS_PER_IP from the client's address (429), before any socket state exists.
 */
import uWS, { type TemplatedApp } from 'uWebSockets.js'
import type { GatewayLimits } from '../../../config/index.js'
import { problemReply, remoteAddress, reply } from '../../../platform/http/index.js'
import type { GatewayContext } from '../handlers/context.js'
import { createMessageReader, type ReadSettings } from '../input/read-client-message.js'
import { GatewayConnection, type SocketData } from './gateway-connection.js'
import { serveMessage } from './serve-message.js'

const PING_SECONDS = 120
const MAX_BACKPRESSURE = 1 << 20

export function registerSocket(app: TemplatedApp, ctx: GatewayContext, settings: ReadSettings, limits: GatewayLimits): void {
  const reader = createMessageReader(settings)
  app.ws<SocketData>('/ws', {
    compression: uWS.DISABLED,
    maxPayloadLength: 16 * limits.maxMessageBytes,
    idleTimeout: PING_SECONDS,
    sendPingsAutomatically: true,
    maxBackpressure: MAX_BACKPRESSURE,
    closeOnBackpressureLimit: 1,
    upgrade(res, req, context) {
      const address = remoteAddress(res, req, limits.trustedProxies)
      const refusal = ctx.registry.refusal(address)
      if (refusal === 'gateway') {
        return reply(res, problemReply(503, `the gateway holds at most ${limits.maxConnections} connections; retry later`, undefined, { 'retry-after': '5' }))
      }
      if (refusal === 'address') {
        const detail = `the gateway holds at most ${limits.maxConnectionsPerAddress} connections from one address; close one or retry later`
        return reply(res, problemReply(429, detail, undefined, { 'retry-after': '5' }))
      }
      const data: SocketData = { remoteAddress: address }
      res.upgrade(data, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context)
    },
    open(ws) {
      const now = Date.now()
      const address = ws.getUserData().remoteAddress
      const conn = new GatewayConnection(ws, now, limits, address, ctx.registry.admit(address, now))
      ws.getUserData().conn = conn
      ctx.registry.add(conn)
    },
    message(ws, frame, isBinary) {
      const conn = ws.getUserData().conn!
      serveMessage(ctx, reader, conn, frame, isBinary).catch((error: unknown) =>
        ctx.log.error('message handling failed', { error }),
      )
    },
    close(ws) {
      const conn = ws.getUserData().conn!
      conn.open = false
      ctx.registry.remove(conn)
    },
  })
}
