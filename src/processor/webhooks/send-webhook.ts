/**
 * One delivery attempt: POST the body to the merchant's URL and report what happened — the status code,
 * or why there is none (refused, reset, timed out) — and how long it took. Redirects are not followed
 * (a 3xx is a failed attempt: the merchant should register the final URL), and the response body is
 * not read.
 */
import type { AttemptOutcome } from '../db/index.js'

export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  /** Aborts the attempt when the worker stops. */
  signal: AbortSignal
}

const USER_AGENT = 'settlement-processor-webhooks/1'

export async function sendWebhook(request: WebhookRequest): Promise<AttemptOutcome> {
  const started = performance.now()
  const elapsed = () => performance.now() - started
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { ...request.headers, 'user-agent': USER_AGENT },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(request.timeoutMs)]),
    })
    const durationMs = elapsed()
    await response.body?.cancel().catch(() => {})
    return { statusCode: response.status, durationMs }
  } catch (error) {
    return { error: describeFailure(error, request), durationMs: elapsed() }
  }
}

function describeFailure(error: unknown, request: WebhookRequest): string {
  if (request.signal.aborted) return 'aborted: the delivery worker stopped'
  if (error instanceof DOMException && error.name === 'TimeoutError') return `timed out after ${request.timeoutMs} ms`
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`
  return cause?.message ?? (error instanceof Error ? error.message : String(error))
}
