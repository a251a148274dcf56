/**
 * A refused client message: the error code (its category follows from it) and a message for the wallet
 * developer. Thrown by validation and by the handlers' semantic checks, turned into one `ERROR` answer.
 */
import { errorCategories, type ErrorCode, type ServerMessage } from '../../../wire/index.js'

export class GatewayRefusal extends Error {
  override name = 'GatewayRefusal'

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export function errorMessage(code: ErrorCode, message: string, requestId: string | undefined): Extract<ServerMessage, { type: 'ERROR' }> {
  return { type: 'ERROR', ...(requestId === undefined ? {} : { requestId }), errorCode: code, errorCategory: errorCategories[code], message }
}
