/**
 * `GET /events/stream` (SPEC §3.1): Server-Sent Events with the WebSocket filters as query parameters.
 * `event: settlement` / `event: removed`, `id:` = the cursor to resume after, `: keepalive` comments,
 * `Last-Event-ID` (or `?since=`) replay. A response whose unsent bytes pass LIVE_MAX_BUFFERED_BYTES, or one
 * of the oldest slow consumers while all live connections hold more than LIVE_MAX_TOTAL_BUFFERED_BYTES, gets
 * `event: error` with code SLOW_CONSUMER and is ended; the client reconnects with Last-Event-ID. The
 * connection caps answer as for the WebSocket upgrade (503 for the server's, 429 for the address's).
 *
 * uWS exposes no buffered amount for HTTP responses: `write` returning false means the socket holds
 * unsent bytes, so the bytes written since the last write that went through bound what it holds. Once
 * `onWritable` is set uWS drains only when written to, so the handler writes an empty comment.
 */
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js'
import type { LiveLimits } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import { FILTER_KEYS } from '../../query/index.js'
import { errorReply, remoteAddress, reply } from '../../../platform/http/index.js'
import { parseCursor, parseFilter, readParams } from '../rest/parse-query.js'
import type { SlowBound } from './buffer-budget.js'
import { admission } from './live-admission.js'
import type { LiveConnection, Subscription } from './live-connection.js'
import type { LiveHub } from './live-hub.js'
import { sseErrorFrame } from '../../../wire/index.js'
import type { Refusals } from './register-websocket.js'

const SLOW_CONSUMER_MESSAGES: Record<SlowBound, string> = {
  connection: 'unsent events passed the server bound; reconnect with Last-Event-ID',
  total: 'the server holds too much unsent data and this stream held some longest; reconnect with Last-Event-ID',
}

export const STREAM_PARAMS = [...FILTER_KEYS, 'since'] as const

class SseConnection implements LiveConnection {
  readonly channel = 'sse'
  readonly subscriptions = new Map<string, Subscription>()
  open = true
  bufferedSeen = 0
  slowSince: number | undefined
  #unsent = 0

  constructor(
    readonly res: HttpResponse,
    readonly address: string,
    readonly hub: LiveHub,
    readonly maxBufferedBytes: number,
  ) {}

  buffered = () => this.#unsent

  cork = (fn: () => void) => void this.res.cork(fn)

  send = (text: string) => {
    if (!this.open) return
    this.res.cork(() => {
      this.#unsent = this.res.write(text) ? 0 : this.#unsent + text.length
    })
    if (this.#unsent > this.maxBufferedBytes) this.hub.closeSlow(this)
  }

  writable = () => {
    this.send(':\n')
    if (this.#unsent === 0) this.hub.resume(this)
    return true
  }

  closeSlow = (bound: SlowBound) => this.#finish(sseErrorFrame({ code: 'SLOW_CONSUMER', message: SLOW_CONSUMER_MESSAGES[bound] }))

  end = () => this.#finish('')

  aborted = () => {
    this.open = false
    this.hub.drop(this)
  }

  #finish(last: string): void {
    if (!this.open) return
    this.open = false
    this.res.cork(() => this.res.end(last))
    this.hub.drop(this)
  }
}

export function registerSse(app: TemplatedApp, hub: LiveHub, limits: LiveLimits, logger: Logger, refusals: Refusals): void {
  app.get('/events/stream', (res, req) => {
    let filter
    let since
    try {
      const params = readParams(req.getQuery(), STREAM_PARAMS)
      filter = parseFilter(params)
      const lastEventId = req.getHeader('last-event-id')
      const sinceParam = params.get('since')
      // A reconnecting EventSource repeats the URL and adds Last-Event-ID, the newer of the two.
      if (lastEventId !== '') since = parseCursor(lastEventId, 'Last-Event-ID')
      else if (sinceParam !== undefined) since = parseCursor(sinceParam, 'since')
    } catch (error) {
      return reply(res, errorReply(error, logger))
    }
    const address = remoteAddress(res, req, limits.trustedProxies)
    const refused = admission(hub, address, limits)
    if (refused) {
      refusals(1, { code: refused.code })
      return reply(res, refused.reply)
    }

    const conn = new SseConnection(res, address, hub, limits.maxBufferedBytes)
    res.onAborted(conn.aborted)
    res.onWritable(conn.writable)
    res
      .writeStatus('200 OK')
      .writeHeader('content-type', 'text/event-stream; charset=utf-8')
      .writeHeader('cache-control', 'no-cache, no-transform')
      .writeHeader('x-accel-buffering', 'no')
      .writeHeader('access-control-allow-origin', '*')
    conn.send(': connected\n\n')
    hub.add(conn)
    hub.subscribe(conn, undefined, filter, since)
  })
}
