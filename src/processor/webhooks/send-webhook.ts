/**
 * One delivery attempt: POST the body to the merchant's URL through the webhook dispatcher (which refuses
 * internal addresses off the local chain: `webhook-target.ts`) and report what happened — the status
 * code, or why there is none (refused, reset, timed out) — and how long it took. The reason is shown to
 * the merchant, so it names the kind of failure, never an address or a message from inside the network.
 * Redirects are not followed (a 3xx is a failed attempt: the merchant should register the final URL), and
 * the response body is not read.
 *
 * The timeout is a timer aborting a controller of ours, not `AbortSignal.timeout` inside `AbortSignal.any`:
 * on Node 20 such a timeout signal is held only weakly (nodejs/node#57736), and a garbage collection while
 * the request waited made it never fire — an endpoint that never answered then held its attempt, and its
 * slot, until the worker stopped (seen as a timed-out attempt never recorded, send-webhook.test.ts).
 */
import { fetch, type Dispatcher } from 'undici'
import type { AttemptOutcome } from '../db/index.js'
import { InternalTargetError, refuseInternalLiteral } from './webhook-target.js'

export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  /** Aborts the attempt when the worker stops. */
  signal: AbortSignal
  dispatcher: Dispatcher
  /** Off the local chain: a URL naming an internal address is refused before any request. */
  refuseInternal: boolean
}

const USER_AGENT = 'settlement-processor-webhooks/1'

export async function sendWebhook(request: WebhookRequest): Promise<AttemptOutcome> {
  const started = performance.now()
  const elapsed = () => performance.now() - started
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(new DOMException(`timed out after ${request.timeoutMs} ms`, 'TimeoutError')), request.timeoutMs)
  try {
    if (request.refuseInternal) refuseInternalLiteral(request.url)
    const response = await fetch(request.url, {
      dispatcher: request.dispatcher,
      method: 'POST',
      headers: { ...request.headers, 'user-agent': USER_AGENT },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([request.signal, timeout.signal]),
    })
    const durationMs = elapsed()
    await response.body?.cancel().catch(() => {})
    return { statusCode: response.status, durationMs }
  } catch (error) {
    return { error: describeFailure(error, request), durationMs: elapsed() }
  } finally {
    clearTimeout(timer)
  }
}

/** What failed, in words a merchant may see: an error code and its meaning, no address, no message. */
const FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  UND_ERR_SOCKET: 'connection closed before an answer',
}

function describeFailure(error: unknown, request: WebhookRequest): string {
  if (request.signal.aborted) return 'aborted: the delivery worker stopped'
  if (error instanceof DOMException && error.name === 'TimeoutError') return `timed out after ${request.timeoutMs} ms`
  const cause = error instanceof InternalTargetError ? error : (error as { cause?: unknown }).cause
  if (cause instanceof InternalTargetError) return `refused: ${cause.message}`
  const code = (cause as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return FAILURES[code] ? `${code}: ${FAILURES[code]}` : code.startsWith('ERR_TLS') || code.includes('CERT') ? `${code}: TLS failed` : code
  return 'the request failed'
}
