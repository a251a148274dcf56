/**
 * What a failed read from the node means to the indexer, decided in one place. Nodes have no common
 * error code for "range too large" (geth, erigon, anvil and the hosted providers each word it their
 * own way, and a worker thread hands back only the message), so the wording is matched here, once, and
 * the rest of the indexer looks at the error's class and `retryable`.
 *
 * A read the node failed may pass later; a log the node did give but that is not a settlement
 * (`MalformedLogError`) will be the same log on every retry, so it stops indexing where it shows.
 */
import { BaseError } from '../../errors/index.js'

const TOO_LARGE = /too many|limit exceeded|exceed|range is too|response size|query returned more than|timed? ?out|block range/i

/** The node refused a block range as too large: ask for a smaller one at once rather than wait. */
export class RangeTooLargeError extends BaseError {
  override name = 'RangeTooLargeError'
}

/** The node failed or could not be reached: the same read later can succeed. */
export class NodeReadError extends BaseError {
  override name = 'NodeReadError'
}

/** A log the node returned is not a `PermittedTransfer` of the expected layout: no retry changes it. */
export class MalformedLogError extends BaseError {
  override name = 'MalformedLogError'
}

/** `error` of a read from the node as the indexer's class; `range` is the blocks read, when the read had one. */
export function classifyNodeError(error: unknown, range?: { from: number; to: number }): BaseError {
  if (error instanceof BaseError && !(error instanceof RpcResponseError)) return error
  const crossed = crossedFailure(error)
  const what = range ? `reading blocks ${range.from}..${range.to}` : 'reading from the node'
  if (crossed?.name === MalformedLogError.name) return new MalformedLogError(`${what}: a log is not a settlement`, { details: { ...crossed.details }, cause: error })
  if (crossed?.retryable === false) return new NodeReadError(`${what} failed`, { details: { ...crossed.details }, cause: error })
  const text = error instanceof Error ? `${error.message} ${(error as { details?: string }).details ?? ''}` : String(error)
  const details = range ? { from: range.from, to: range.to } : {}
  if (range && TOO_LARGE.test(text)) return new RangeTooLargeError(`the node refused blocks ${range.from}..${range.to} as too large`, { details, cause: error, retryable: true })
  return new NodeReadError(`${what} failed`, { details, cause: error, retryable: true })
}

/** The node answered with a JSON-RPC error object; its message is kept for `classifyNodeError`. */
export class RpcResponseError extends BaseError {
  override name = 'RpcResponseError'
}

/** What an error's class says after a thread boundary, which keeps only an error's message and cause. */
interface CrossedFailure {
  crossedThreads: true
  name: string
  retryable: boolean
  details: Record<string, unknown>
}

/**
 * `error` as an indexing worker throws it back: structured cloning drops its class, so the class and
 * `retryable` travel as its cause, for `classifyNodeError` on the indexer's thread.
 */
export function crossThreads(error: unknown, message: string): BaseError {
  const own = error instanceof BaseError && !(error instanceof RpcResponseError) ? error : undefined
  const crossed: CrossedFailure = { crossedThreads: true, name: own?.name ?? 'NodeReadError', retryable: own?.retryable ?? true, details: own?.details ?? {} }
  return new BaseError(message, { cause: crossed, retryable: crossed.retryable })
}

function crossedFailure(error: unknown): CrossedFailure | undefined {
  const cause = error instanceof Error ? (error.cause as Partial<CrossedFailure> | undefined) : undefined
  return cause?.crossedThreads === true ? (cause as CrossedFailure) : undefined
}
