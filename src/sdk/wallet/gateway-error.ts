/** An `ERROR` answer of the wallet gateway, or the connection failing under a request. */
import type { ErrorCategory, ErrorCode } from '../../wire/index.js'

export class GatewayError extends Error {
  override name = 'GatewayError'

  constructor(
    readonly errorCode: ErrorCode | 'CONNECTION_CLOSED' | 'TIMEOUT',
    readonly errorCategory: ErrorCategory | 'CONNECTION',
    message: string,
  ) {
    super(`${errorCode}: ${message}`)
  }
}
