/**
 * The gateway's WebSocket route `/ws`. uWS cuts frames over the hard limit (16 × the soft limit) without
 * a close frame; pings every 120 s find dead peers (protocol idleness is the registry's sweep, with its
 * own close code). A wallet that stops reading while 1 MiB of answers pile up is disconnected by uWS.
 */
import uWS, { type TemplatedApp } from 'uWebSockets.js'
import type { GatewayLimits } from '../../../config/index.js'
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
    open(ws) {
      const conn = new GatewayConnection(ws, Date.now(), limits)
      ws.getUserData().conn = conn
      ctx.registry.add(conn)
    },
    message(ws, frame, isBinary) {
      const conn = ws.getUserData().conn!
      serveMessage(ctx, reader, conn, frame, isBinary).catch((error: unknown) =>
        ctx.log.error('message handling failed', { error: error instanceof Error ? error.stack : String(error) }),
      )
    },
    close(ws) {
      const conn = ws.getUserData().conn!
      conn.open = false
      ctx.registry.remove(conn)
    },
  })
}
