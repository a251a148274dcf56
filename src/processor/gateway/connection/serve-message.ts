/**
 * What happens to each frame a wallet sends: the rate limit first (RATE_LIMIT_EXCEEDED; sustained abuse
 * closes with 4008), then validation and signature checks (one place: read-client-message.ts), then the
 * connection's binding (the first valid message binds its caller; another caller later is
 * ADDRESS_MISMATCH; binding supersedes the address's older connection, here and on other gateways), then
 * the type's handler. Every refusal is one ERROR answer and the connection stays open.
 */
import { announceClaim } from '../../db/index.js'
import type { BoundConnection, GatewayContext } from '../handlers/context.js'
import { handle } from '../handlers/index.js'
import type { VerifiedClientMessage, MessageReader } from '../input/read-client-message.js'
import { GatewayRefusal, errorMessage } from '../input/gateway-refusal.js'
import { closeCodes } from '../../../wire/index.js'
import type { GatewayConnection } from './gateway-connection.js'

/**
 * Must be called in uWS's message callback: the frame is valid until the callback returns, and
 * everything that reads it runs before the first await.
 */
export async function serveMessage(ctx: GatewayContext, reader: MessageReader, conn: GatewayConnection, frame: ArrayBuffer, isBinary: boolean): Promise<void> {
  const now = Date.now()
  conn.lastMessageAt = now
  const decision = conn.limiter.take(now)
  if (decision === 'abuse') return conn.close(closeCodes.abuse, 'too many messages past the rate limit')
  if (decision === 'refuse') return conn.send(errorMessage('RATE_LIMIT_EXCEEDED', 'too many messages; slow down', reader.peekRequestId(frame, isBinary)))
  const read = await reader.read(frame, isBinary, Math.floor(now / 1000))
  if ('refusal' in read) return conn.send(errorMessage(read.refusal.code, read.refusal.message, read.requestId))
  await answer(ctx, conn, read.message, now)
}

async function answer(ctx: GatewayContext, conn: GatewayConnection, message: VerifiedClientMessage, now: number): Promise<void> {
  const { requestId } = message.payload
  if (!conn.open) return
  if (!conn.address) {
    ctx.registry.bind(conn, message.callerAddress, now)
    announceClaim(ctx.db.pool, { address: message.callerAddress, at: now, instance: ctx.registry.instance }).catch((error: unknown) =>
      ctx.log.warn('could not announce a connection to the other gateways', { error }),
    )
  } else if (conn.address !== message.callerAddress) {
    return conn.send(errorMessage('ADDRESS_MISMATCH', `this connection belongs to ${conn.address}; connect again to act as ${message.callerAddress}`, requestId))
  }
  try {
    conn.send(await handle(ctx, conn as BoundConnection, message))
  } catch (error) {
    if (error instanceof GatewayRefusal) return conn.send(errorMessage(error.code, error.message, requestId))
    ctx.log.error('message failed', { type: message.type, error })
    conn.send(errorMessage('INTERNAL_ERROR', 'the gateway could not answer this message; it has been logged', requestId))
  }
}
