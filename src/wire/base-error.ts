/**
 * The root of every error the project throws, the SDK's included (viem's `BaseError`, Ponder's retryable
 * split): a short message a person can act on, details for logs, the underlying `cause`, and whether
 * trying the same thing again can help. It lives in `wire/` because every area may import it (the SDK
 * may not import `errors/`, which re-exports it); browser-safe like the rest of `wire/`.
 *
 * Callers decide to retry from `isRetryable`, never from the text of a message. An error the project
 * did not make is retryable only when it is known to be transient (a refused or reset connection, a
 * timeout, an HTTP 5xx or 429): a plain `Error` is a bug or bad data, and retrying it would fail the
 * same way forever.
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

  /** The message without its causes (viem's name for it); `message` is the same text. */
  get shortMessage(): string {
    return this.message
  }

  /**
   * viem's walk: the first error of the cause chain (this one first) that `match` accepts, or `null`;
   * without `match`, the innermost cause.
   */
  walk(match?: (error: unknown) => boolean): unknown {
    return walkCauses(this, match)
  }
}

const MAX_CAUSES = 8

/** `walk` for any error: the first of `error` and its causes that `match` accepts (else `null`), or the innermost. */
export function walkCauses(error: unknown, match?: (error: unknown) => boolean): unknown {
  let at = error
  for (let depth = 0; depth <= MAX_CAUSES; depth++) {
    if (match?.(at)) return at
    const cause = at instanceof Error ? at.cause : undefined
    if (cause === undefined) return match ? null : at
    at = cause
  }
  return match ? null : at
}

/** Codes of Node's and undici's network failures: the other end may answer later. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  '57P01', // PostgreSQL: the server is shutting down
  '08000', // PostgreSQL: connection exception
  '08003',
  '08006',
])

/** viem's (and the platform's) errors that mean "no answer in time" or "the node is busy or broken now". */
const TRANSIENT_NAMES = new Set(['TimeoutError', 'SocketClosedError', 'WebSocketRequestError', 'LimitExceededRpcError', 'InternalRpcError', 'ResourceUnavailableRpcError'])

/** True when a retry can help, decided per kind of error (see the file's comment); a plain `Error` is not. */
export function isRetryable(error: unknown): boolean {
  // The outermost error that has a say decides: the project's own flag, or a known transient failure.
  const decider = walkCauses(error, (at) => at instanceof BaseError || transient(at))
  return decider instanceof BaseError ? decider.retryable : decider !== null
}

function transient(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const { code, status } = error as { code?: unknown; status?: unknown }
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true
  if (TRANSIENT_NAMES.has(error.name)) return true
  // viem's HttpRequestError: no status is a connection that never answered.
  if (error.name === 'HttpRequestError') return status === undefined || status === 408 || status === 429 || (typeof status === 'number' && status >= 500)
  return false
}

/** The messages of `error` and its causes, outermost first: one log field for the whole chain. */
export function causeChain(error: unknown): string[] {
  const chain: string[] = []
  for (let at: unknown = error; at !== undefined && chain.length < MAX_CAUSES; at = at instanceof Error ? at.cause : undefined) {
    chain.push(at instanceof Error ? at.message : String(at))
  }
  return chain
}
