/**
 * An `ERROR` answer of the wallet gateway, or the connection failing under a request; a `BaseError` of
 * the project's family. A lost connection, a timeout, a rate limit or the gateway's own failure may pass
 * on a retry; a refusal of the message itself (its shape, signature or meaning) will not.
 */
import { BaseError, type ErrorCategory, type ErrorCode } from '../../wire/index.js'

const RETRYABLE_CATEGORIES: ReadonlySet<string> = new Set(['CONNECTION', 'RATE_LIMIT', 'INTERNAL_ERROR'])

export class GatewayError extends BaseError {
  override name = 'GatewayError'

  constructor(
    readonly errorCode: ErrorCode | 'CONNECTION_CLOSED' | 'TIMEOUT',
    readonly errorCategory: ErrorCategory | 'CONNECTION',
    message: string,
  ) {
    super(`${errorCode}: ${message}`, { details: { errorCode, errorCategory }, retryable: RETRYABLE_CATEGORIES.has(errorCategory) })
  }
}
