/**
 * The SDK's errors. Every one is an `ExplorerError`, so a caller can catch the SDK's failures apart from
 * its own; the subclass says what went wrong, and `cause` keeps the underlying error.
 */
import type { ProblemDetails } from './types.js'

export class ExplorerError extends Error {
  override name = 'ExplorerError'
}

/** The explorer answered with an error status; `problem` is its problem+json body. */
export class ExplorerApiError extends ExplorerError {
  override name = 'ExplorerApiError'
  readonly status: number
  readonly problem: ProblemDetails
  readonly url: string

  constructor(problem: ProblemDetails, url: string) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`)
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
    super(`no answer from ${url} within ${timeout} ms; the request was aborted`)
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
    super(message, options)
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
    super(`${code}: ${message}`)
  }
}
