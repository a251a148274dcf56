/**
 * The root of the project's errors (viem's `BaseError`, Ponder's retryable split): a short message a
 * person can act on, optional details for logs, the underlying `cause`, and whether trying the same thing
 * again can help. Callers decide to retry from `retryable`, never from the text of a message.
 */
export interface BaseErrorOptions {
  /** What a log line needs beside the message (a range, a setting's value, a status). */
  details?: Record<string, unknown>
  cause?: unknown
  /** True when the same call may succeed later (a node down, a timeout); false for bad input or state. */
  retryable?: boolean
}

export class BaseError extends Error {
  override name = 'BaseError'
  readonly details: Record<string, unknown>
  readonly retryable: boolean

  constructor(shortMessage: string, { details = {}, cause, retryable = false }: BaseErrorOptions = {}) {
    super(shortMessage, cause === undefined ? undefined : { cause })
    this.details = details
    this.retryable = retryable
  }
}

/** True when `error` says a retry can help; errors from outside the project are assumed transient. */
export function isRetryable(error: unknown): boolean {
  return error instanceof BaseError ? error.retryable : true
}

/** The messages of `error` and its causes, outermost first: one log field for the whole chain. */
export function causeChain(error: unknown): string[] {
  const chain: string[] = []
  for (let at: unknown = error; at !== undefined && chain.length < 8; at = at instanceof Error ? at.cause : undefined) {
    chain.push(at instanceof Error ? at.message : String(at))
  }
  return chain
}
