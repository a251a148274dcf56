/**
 * What a failed read from the node means to the indexer, decided in one place. Nodes have no common
 * error code for "range too large" (geth, erigon, anvil and the hosted providers each word it their
 * own way, and a worker thread hands back only the message), so the wording is matched here, once, and
 * the rest of the indexer looks at the error's class and `retryable`.
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

export function classifyNodeError(error: unknown, range: { from: number; to: number }): BaseError {
  if (error instanceof BaseError && !(error instanceof RpcResponseError)) return error
  const text = error instanceof Error ? `${error.message} ${(error as { details?: string }).details ?? ''}` : String(error)
  const details = { from: range.from, to: range.to }
  if (TOO_LARGE.test(text)) return new RangeTooLargeError(`the node refused blocks ${range.from}..${range.to} as too large`, { details, cause: error, retryable: true })
  return new NodeReadError(`reading blocks ${range.from}..${range.to} failed`, { details, cause: error, retryable: true })
}

/** The node answered with a JSON-RPC error object; its message is kept for `classifyNodeError`. */
export class RpcResponseError extends BaseError {
  override name = 'RpcResponseError'
}
