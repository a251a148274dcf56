/**
 * One GET to the explorer through the global `fetch` (undici in Node, the browser's own elsewhere). The
 * timeout covers the whole exchange, body included, and really aborts the request: the connection is torn
 * down, not merely ignored.
 */
import { ExplorerApiError, ExplorerNetworkError, ExplorerTimeoutError } from '../errors.js'
import type { ProblemDetails, RequestOptions } from '../types.js'

export interface RequestJsonParams extends RequestOptions {
  url: string
  /** Resolve `undefined` instead of throwing when the explorer answers 404. */
  notFoundAsUndefined?: boolean
}

export async function requestJson<T>(params: RequestJsonParams): Promise<T | undefined> {
  const { url, timeout = 0, signal } = params
  signal?.throwIfAborted()
  const controller = new AbortController()
  let timedOut = false
  const timer =
    timeout > 0
      ? setTimeout(() => {
          timedOut = true
          controller.abort()
        }, timeout)
      : undefined
  const forwardAbort = () => controller.abort(signal?.reason)
  signal?.addEventListener('abort', forwardAbort, { once: true })
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: controller.signal })
    const text = await response.text()
    if (response.ok) return parseJson<T>(text, url)
    if (response.status === 404 && params.notFoundAsUndefined) return undefined
    throw new ExplorerApiError(readProblem(text, response.status, response.statusText), url)
  } catch (error) {
    if (timedOut) throw new ExplorerTimeoutError(timeout, url)
    if (signal?.aborted) throw signal.reason
    if (error instanceof ExplorerApiError || error instanceof ExplorerNetworkError) throw error
    throw new ExplorerNetworkError(`request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`, url, { cause: error })
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', forwardAbort)
  }
}

function parseJson<T>(text: string, url: string): T {
  try {
    return JSON.parse(text) as T
  } catch (error) {
    throw new ExplorerNetworkError(`the answer from ${url} is not JSON`, url, { cause: error })
  }
}

/** The problem body, or one made up from the status when a proxy in between answered with something else. */
export function readProblem(text: string, status: number, statusText: string): ProblemDetails {
  try {
    const body = JSON.parse(text) as Partial<ProblemDetails>
    if (body && typeof body === 'object' && typeof body.detail === 'string') {
      return { ...body, type: body.type ?? 'about:blank', title: body.title ?? statusText, status: body.status ?? status, detail: body.detail }
    }
  } catch {
    // not JSON: fall through to a problem built from the status line
  }
  return { type: 'about:blank', title: statusText || `HTTP ${status}`, status, detail: text.slice(0, 500) || `HTTP ${status}` }
}
