/**
 * A refused client message: the error code (its category follows from it) and a message for the wallet
 * developer. Thrown by validation and by the handlers' semantic checks, turned into one `ERROR` answer.
 */
import { BaseError } from '../../../errors/index.js'
import { errorCategories, type ErrorCode, type ServerMessage } from '../../../wire/index.js'

/** Refusals the same message may get past later: the relayer funded again, the rate window moved, a service back. */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set(['RELAYER_UNAVAILABLE', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR'])

export class GatewayRefusal extends BaseError {
  override name = 'GatewayRefusal'

  constructor(
    readonly code: ErrorCode,
    message: string,
    { cause }: { cause?: unknown } = {},
  ) {
    super(message, { details: { code }, cause, retryable: RETRYABLE_CODES.has(code) })
  }
}

export function errorMessage(code: ErrorCode, message: string, requestId: string | undefined): Extract<ServerMessage, { type: 'ERROR' }> {
  return { type: 'ERROR', ...(requestId === undefined ? {} : { requestId }), errorCode: code, errorCategory: errorCategories[code], message }
}
