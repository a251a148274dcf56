/**
 * The SDK's errors. Every one is an `ExplorerError`, so a caller can catch the SDK's failures apart from
 * its own, and a `BaseError` of the project's one family (wire/base-error.ts): the subclass says what
 * went wrong, `cause` keeps the underlying error, and `retryable` says whether asking again can help.
 */
import { BaseError } from '../wire/index.js'
import type { ProblemDetails } from './types.js'

export class ExplorerError extends BaseError {
  override name = 'ExplorerError'
}

/** The explorer answered with an error status; `problem` is its problem+json body. */
export class ExplorerApiError extends ExplorerError {
  override name = 'ExplorerApiError'
  readonly status: number
  readonly problem: ProblemDetails
  readonly url: string

  constructor(problem: ProblemDetails, url: string) {
    // The explorer's 5xx (a query pool busy, a lagging replica) and 429 pass; a 4xx is the request's fault.
    super(`${problem.status} ${problem.title}: ${problem.detail}`, { details: { url }, retryable: problem.status >= 500 || problem.status === 429 })
    this.status = problem.status
    this.problem = problem
    this.url = url
  }

  /** The query parameter at fault, when the explorer named one. */
  get param(): string | undefined {
    return this.problem.param
  }
}

/** No complete answer within the timeout; the request has been aborted. */
export class ExplorerTimeoutError extends ExplorerError {
  override name = 'ExplorerTimeoutError'

  constructor(
    readonly timeout: number,
    readonly url: string,
  ) {
    super(`no answer from ${url} within ${timeout} ms; the request was aborted`, { details: { url, timeout }, retryable: true })
  }
}

/** The request never got an HTTP answer (refused, reset, DNS), or the answer was not the JSON promised. */
export class ExplorerNetworkError extends ExplorerError {
  override name = 'ExplorerNetworkError'

  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, { ...options, details: { url }, retryable: true })
  }
}

/** The live feed reported a problem: an `ERROR` message from the server, or a frame the SDK cannot read. */
export class ExplorerLiveError extends ExplorerError {
  override name = 'ExplorerLiveError'

  constructor(
    readonly code: string,
    message: string,
    /** The subscription concerned, when the server named one. */
    readonly subscription?: string,
  ) {
    super(`${code}: ${message}`, { details: { code, ...(subscription !== undefined && { subscription }) } })
  }
}
