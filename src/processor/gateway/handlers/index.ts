/** The handler of every client message type. */
import type { VerifiedClientMessage } from '../input/read-client-message.js'
import type { ClientMessageType, ServerMessage } from '../../../wire/index.js'
import { acceptAcquiring, acceptPayment } from './accept-submission.js'
import { answerHistory } from './answer-history.js'
import { answerBalance, answerFees, answerNonce } from './answer-reads.js'
import { answerSubmissionStatus } from './answer-submission-status.js'
import type { BoundConnection, GatewayContext, Handler } from './context.js'
import { subscribeBalance, subscribeTransfers, unsubscribe } from './manage-subscriptions.js'

export const handlers: { [T in ClientMessageType]: Handler<T> } = {
  GET_NONCE: answerNonce,
  GET_FEES: answerFees,
  GET_BALANCE: answerBalance,
  GET_HISTORY: answerHistory,
  SUBMIT_PAYMENT: acceptPayment,
  SUBMIT_ACQUIRING: acceptAcquiring,
  SUBSCRIBE_BALANCE: subscribeBalance,
  SUBSCRIBE_TRANSFERS: subscribeTransfers,
  UNSUBSCRIBE: unsubscribe,
  GET_SUBMISSION_STATUS: answerSubmissionStatus,
}

/** Answers `message` with its type's handler (or throws a `GatewayRefusal`). */
export function handle(ctx: GatewayContext, conn: BoundConnection, message: VerifiedClientMessage): Promise<ServerMessage> {
  const handler = handlers[message.type] as unknown as Handler<ClientMessageType>
  return handler(ctx, conn, message)
}
