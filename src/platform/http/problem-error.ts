/**
 * Thrown by validation at the edge of every HTTP server; the server's reply turns it into the
 * application/problem+json body of wire/problem.ts. A 4xx is the client's to fix; a 5xx may pass.
 */
import { BaseError } from '../../errors/index.js'
import { problem, type Problem } from '../../wire/index.js'

export class ProblemError extends BaseError {
  override name = 'ProblemError'

  constructor(
    readonly status: number,
    detail: string,
    readonly param?: string,
    options: { cause?: unknown } = {},
  ) {
    super(detail, { details: { status, ...(param === undefined ? {} : { param }) }, cause: options.cause, retryable: status >= 500 })
  }

  toProblem(): Problem {
    return problem(this.status, this.message, this.param)
  }
}

/**
 * Seconds a client is told to wait (Retry-After) before repeating a request refused 503: such a refusal
 * is an outage of something behind the server (the chain node not answering a fee lookup), expected to
 * pass, and nothing was stored.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

/** The headers a problem reply of `status` carries besides its body: Retry-After on a 503. */
export const problemHeaders = (status: number): Record<string, string> =>
  status === 503 ? { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } : {}

/** A 400 naming the query parameter or field at fault. */
export const badParam = (param: string, detail: string) => new ProblemError(400, detail, param)
