/**
 * The merchant client's errors, modelled on the SDK's (`ExplorerApiError`): one class for an answer with
 * an error status, carrying its problem+json body, and one for no answer at all, carrying the cause. A
 * timeout is a network failure (retryable) that says how long it waited.
 */
import { BaseError } from '../../errors/index.js'
import type { ProblemDetails } from '../../sdk/index.js'

/** RFC 9457 problem details, the same shape the explorer and the checkout engine write. */
export type { ProblemDetails }

/** The merchant API answered with an error status; `problem` is its body. */
export class MerchantApiError extends BaseError {
  override name = 'MerchantApiError'
  readonly status: number

  constructor(
    readonly problem: ProblemDetails,
    readonly url: string,
  ) {
    // A 5xx (or 429) may pass; a 4xx is the request's fault and stays one.
    super(`${problem.status} ${problem.title}: ${problem.detail}`, { details: { status: problem.status, url }, retryable: problem.status >= 500 || problem.status === 429 })
    this.status = problem.status
  }

  /** The field or parameter at fault, when the engine named one. */
  get param(): string | undefined {
    return this.problem.param
  }
}

/** No complete answer: refused, reset, the TLS handshake failed (a certificate not accepted), or the body was cut short. */
export class MerchantNetworkError extends BaseError {
  override name = 'MerchantNetworkError'

  constructor(
    message: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(message, { details: { url }, cause, retryable: true })
  }
}

/** No answer (or, while downloading, no next chunk) within the timeout; the request was aborted. */
export class MerchantTimeoutError extends MerchantNetworkError {
  override name = 'MerchantTimeoutError'

  constructor(
    readonly timeoutMs: number,
    url: string,
    cause: unknown,
  ) {
    super(`no answer from ${url} within ${timeoutMs} ms; the request was aborted`, url, cause)
  }
}
