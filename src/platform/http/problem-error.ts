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

/** A 400 naming the query parameter or field at fault. */
export const badParam = (param: string, detail: string) => new ProblemError(400, detail, param)
