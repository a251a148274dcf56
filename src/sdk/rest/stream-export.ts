/**
 * `GET /events/export` as an async iterable of text chunks, in the order the explorer writes them: the
 * file is never held whole, and reading slowly slows the explorer's writing (the response body is read
 * only as the loop asks for more). Breaking out of the loop, or `signal`, closes the connection, which
 * stops the explorer's walk. A bad query is refused before any byte: `openExportResponse` then throws
 * `ExplorerApiError` with the problem naming the parameter.
 */
import { ExplorerApiError, ExplorerNetworkError, ExplorerTimeoutError } from '../errors.js'
import type { RequestOptions } from '../types.js'
import { readProblem } from './request-json.js'

export interface ExportRequest extends RequestOptions {
  url: string
}

/** The answer's status and headers (`timeout` covers only these); its body is left unread. */
export async function openExportResponse({ url, timeout = 0, signal }: ExportRequest): Promise<Response> {
  signal?.throwIfAborted()
  const controller = new AbortController()
  const forwardAbort = () => controller.abort(signal?.reason)
  signal?.addEventListener('abort', forwardAbort, { once: true })
  let timedOut = false
  const timer = timeout > 0 ? setTimeout(() => ((timedOut = true), controller.abort()), timeout) : undefined
  let response: Response
  try {
    response = await fetch(url, { signal: controller.signal })
  } catch (error) {
    signal?.removeEventListener('abort', forwardAbort)
    if (timedOut) throw new ExplorerTimeoutError(timeout, url)
    if (signal?.aborted) throw signal.reason
    throw new ExplorerNetworkError(`request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`, url, { cause: error })
  } finally {
    clearTimeout(timer)
  }
  if (!response.ok) {
    signal?.removeEventListener('abort', forwardAbort)
    throw new ExplorerApiError(readProblem(await response.text(), response.status, response.statusText), url)
  }
  return response
}

/** The body as text, chunk by chunk; stopping early cancels the body, which closes the connection. */
export async function* responseText(response: Response, url: string, signal?: AbortSignal): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder()
  const reader = response.body!.getReader()
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>
      try {
        step = await reader.read()
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        throw new ExplorerNetworkError(`the export from ${url} broke off: ${error instanceof Error ? error.message : String(error)}`, url, { cause: error })
      }
      if (step.done) break
      const text = decoder.decode(step.value, { stream: true })
      if (text) yield text
    }
    const rest = decoder.decode()
    if (rest) yield rest
  } finally {
    await reader.cancel().catch(() => {})
  }
}
