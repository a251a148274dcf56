/**
 * GET_SUBMISSION_STATUS: the stored status of one of the caller's submissions (after a reconnect, a
 * wallet asks instead of waiting for the next push). Another caller's payload id is as unknown as one
 * never submitted.
 */
import { findSubmission, statusNoticeOf } from '../../db/index.js'
import { GatewayRefusal } from '../input/gateway-refusal.js'
import type { Handler } from './context.js'

export const answerSubmissionStatus: Handler<'GET_SUBMISSION_STATUS'> = async (ctx, conn, { payload }) => {
  const row = await findSubmission(ctx.db.pool, payload.payloadId)
  if (!row || row.callerAddress !== conn.address) throw new GatewayRefusal('UNKNOWN_PAYLOAD_ID', `no submission ${JSON.stringify(payload.payloadId)} of ${conn.address}`)
  const { callerAddress: _, ...status } = statusNoticeOf(row)
  return { type: 'SUBMISSION_STATUS', requestId: payload.requestId, ...status }
}
