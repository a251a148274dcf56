/**
 * WebSocket `/stream` (SPEC §3.3): SUBSCRIBE / UNSUBSCRIBE with acknowledgements, ERROR for anything
 * refused (the connection stays open; SUBSCRIBE past WS_SUBSCRIBE_BURST, then WS_SUBSCRIBE_RATE a second,
 * is RATE_LIMIT_EXCEEDED), and these closes:
 * - 4008 "slow consumer": unsent bytes passed LIVE_MAX_BUFFERED_BYTES, or all connections together passed
 *   LIVE_MAX_TOTAL_BUFFERED_BYTES and this one has held unsent bytes longest; resume with `since`.
 * - 1001 "server shutting down".
 * - frames over the hard frame limit (16 × WS_MAX_MESSAGE_BYTES, at least 64 KiB) are cut off by uWS
 *   without a close frame (1006); frames between the two limits get a MESSAGE_TOO_LARGE error.
 * A connection over WS_MAX_CONNECTIONS is refused before the upgrade: HTTP 503 with a problem body; one
 * over WS_MAX_CONNECTIONS_PER_IP from its address: HTTP 429.
 */
import uWS, { type TemplatedApp, type WebSocket } from 'uWebSockets.js'
import type { LiveLimits } from '../../../config/index.js'
import { TokenBucket, type RateLimit } from '../../../platform/limits/index.js'
import { remoteAddress, reply } from '../../../platform/http/index.js'
import type { SlowBound } from './buffer-budget.js'
import { admission } from './live-admission.js'
import { subscriptionKey, type LiveConnection, type Subscription } from './live-connection.js'
import type { LiveHub } from './live-hub.js'
import { errorMessage, liveCloses, subscribedMessage, unsubscribedMessage, type LiveError } from '../../../wire/index.js'
import { parseClientMessage, type ClientMessage } from './parse-client-message.js'
import { filterTopic } from './topics.js'

const SLOW_CONSUMER_REASONS: Record<SlowBound, string> = {
  connection: liveCloses.slowConsumer.reason,
  total: 'slow consumer: the server holds too much unsent data and this connection held some longest; resume with since',
}

interface SocketData {
  address: string
  conn?: WebSocketConnection
}

class WebSocketConnection implements LiveConnection {
  readonly channel = 'websocket'
  readonly subscriptions = new Map<string, Subscription>()
  open = true
  bufferedSeen = 0
  slowSince: number | undefined
  readonly subscribes: TokenBucket

  constructor(
    readonly ws: WebSocket<SocketData>,
    readonly address: string,
    subscribeRate: RateLimit,
  ) {
    this.subscribes = new TokenBucket(subscribeRate, Date.now())
  }

  buffered = () => this.ws.getBufferedAmount()
  send = (text: string) => void this.ws.send(text, false)
  cork = (fn: () => void) => void this.ws.cork(fn)
  joinTopic = (topic: string) => void this.ws.subscribe(topic)
  leaveTopic = (topic: string) => void this.ws.unsubscribe(topic)
  closeSlow = (bound: SlowBound) => this.ws.end(liveCloses.slowConsumer.code, SLOW_CONSUMER_REASONS[bound])
  end = () => this.ws.end(liveCloses.shutdown.code, liveCloses.shutdown.reason)
}

/** Counts refused messages and connections by code. */
export type Refusals = (by: number, labels: { code: string }) => void

export function registerWebSocket(app: TemplatedApp, hub: LiveHub, limits: LiveLimits, refusals: Refusals): void {
  const subscribeRate: RateLimit = { perSecond: limits.subscribesPerSecond, burst: limits.subscribeBurst }
  const refuse = (conn: LiveConnection, error: LiveError, id?: string) => {
    refusals(1, { code: error.code })
    conn.send(errorMessage(error, id))
  }

  app.ws<SocketData>('/stream', {
    compression: uWS.DISABLED,
    maxPayloadLength: Math.max(64 * 1024, limits.maxMessageBytes * 16),
    idleTimeout: limits.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    // The hub closes at maxBufferedBytes with a close code; this hard cap only guards against a burst
    // between two of its checks (uWS would drop messages past it and close without a code).
    maxBackpressure: limits.maxBufferedBytes + 16 * 1024 * 1024,
    closeOnBackpressureLimit: 0,
    upgrade(res, req, context) {
      const address = remoteAddress(res, req, limits.trustedProxies)
      const refused = admission(hub, address, limits)
      if (refused) {
        refusals(1, { code: refused.code })
        return reply(res, refused.reply)
      }
      const data: SocketData = { address }
      res.upgrade(data, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context)
    },
    open(ws) {
      const conn = new WebSocketConnection(ws, ws.getUserData().address, subscribeRate)
      ws.getUserData().conn = conn
      hub.add(conn)
    },
    message(ws, message, isBinary) {
      const conn = ws.getUserData().conn!
      const parsed = parseClientMessage(message, isBinary, limits.maxMessageBytes)
      if ('error' in parsed) return refuse(conn, parsed.error, parsed.id)
      if (parsed.type === 'SUBSCRIBE') subscribe(conn, parsed)
      else unsubscribe(conn, parsed.id)
    },
    drain(ws) {
      hub.resume(ws.getUserData().conn!)
    },
    close(ws) {
      const conn = ws.getUserData().conn
      if (!conn) return
      conn.open = false
      hub.drop(conn)
    },
  })

  function subscribe(conn: WebSocketConnection, m: Extract<ClientMessage, { type: 'SUBSCRIBE' }>): void {
    if (conn.subscriptions.has(subscriptionKey(m.id, filterTopic(m.filter).topic))) {
      const what = m.id === undefined ? 'this filter without an id' : `id ${JSON.stringify(m.id)}`
      return refuse(conn, { code: 'DUPLICATE_SUBSCRIPTION', message: `this connection already has a subscription with ${what}` }, m.id)
    }
    if (conn.subscriptions.size >= limits.maxSubscriptionsPerConnection) {
      const message = `a connection may hold at most ${limits.maxSubscriptionsPerConnection} subscriptions`
      return refuse(conn, { code: 'TOO_MANY_SUBSCRIPTIONS', message }, m.id)
    }
    // Only a subscription that would start spends the budget: refusals above cost no replay.
    if (!conn.subscribes.take(Date.now())) {
      const message = `a connection may send ${limits.subscribeBurst} SUBSCRIBE at once, then ${limits.subscribesPerSecond} a second; slow down`
      return refuse(conn, { code: 'RATE_LIMIT_EXCEEDED', message }, m.id)
    }
    conn.send(subscribedMessage(m.id, m.filter, m.sinceCursor, m.sinceCursor ?? hub.liveCursor()))
    hub.subscribe(conn, m.id, m.filter, m.since)
  }

  function unsubscribe(conn: LiveConnection, id: string | undefined): void {
    const subs = id === undefined ? [...conn.subscriptions.values()] : [...conn.subscriptions.values()].filter((s) => s.id === id)
    if (id !== undefined && subs.length === 0) {
      return refuse(conn, { code: 'UNKNOWN_SUBSCRIPTION', message: `no subscription with id ${JSON.stringify(id)} on this connection` }, id)
    }
    for (const sub of subs) hub.unsubscribe(sub)
    conn.send(unsubscribedMessage(subs.map((s) => s.id ?? null)))
  }
}
