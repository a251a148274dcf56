/**
 * The live layer between the indexer and the WebSocket and SSE connections.
 *
 * - Fan-out: every live subscription sits in a group keyed by its filter topic (see topics.ts). A
 *   committed settlement is rendered to JSON once, then published once per (topic, subscription id)
 *   group: WebSocket groups are uWS topics, so uWS copies the bytes to each socket in C++; SSE groups
 *   are sets of responses. No code walks the subscribers to test a filter.
 * - One send per socket per block: uWS writes a socket's messages of a loop turn corked, but drains a
 *   subscriber early at 32 messages (a send more); group-turns.ts holds a group's messages past 24 in a
 *   turn for the next turn, so an unfiltered subscriber's 40-settlement block takes 2 sends, not 3.
 * - Gapless `since`: the hub remembers the end of what it published. A replay reads the store in
 *   chunks up to that end, never to the LMDB head (a settlement committed but not yet published would
 *   be sent twice), and the chunk that reaches it joins the live group in the same synchronous turn.
 * - A `since` past that end (a cursor from a replica further along the chain) waits, subscribed to
 *   nothing, until this replica's published end passes it, then replays from there: nothing at or before
 *   the cursor is sent again.
 * - While group-turns.ts holds messages back, some groups have not had all that precedes the published
 *   end: a replay that reaches the end, and a new subscription (which starts as a replay from the end),
 *   waits until nothing is held, then reads on to the end and joins its group.
 * - Replays take turns: each turn of the event loop reads at most `replayScanPerTurn` candidates, chunk by
 *   chunk in queue order, then lets everyone else be served. A filter whose fields rarely meet costs many
 *   candidates per match; a flood of such replays delays its own sender, not the other clients.
 *   replays.ts schedules them; the hub keeps the published end they read up to and takes them live.
 * - Backpressure: replays pause at half of `maxBufferedBytes` and resume on drain; a connection whose
 *   unsent bytes pass `maxBufferedBytes` is closed as a slow consumer (WebSocket close 4008), and so are
 *   the oldest slow consumers while all connections together hold more than `maxTotalBufferedBytes`
 *   (buffer-budget.ts).
 * - Admission: at most `maxConnections` live connections, `maxConnectionsPerAddress` of them from one address
 *   (live-admission.ts).
 * What stays here: publishing to the groups and the buffer checks that follow each publish step.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { LiveLimits } from '../../../config/index.js'
import type { IndexerListener } from '../../indexer/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { Metrics } from '../../../platform/observability/index.js'
import type { SharedConnections } from '../../../platform/limits/index.js'
import { amountInRange, positionBefore, storedEnd, type SettlementFilter, type TokenCache } from '../../query/index.js'
import { boundAfter, boundAt, cursorBefore, cursorOf, fieldValuesOf, settlementText } from '../../query/index.js'
import type { Position, Store, StoredSettlement } from '../../store/index.js'
import { eventMessage, sseFrame, type EventKind } from '../../../wire/index.js'
import { BufferBudget, type SlowBound } from './buffer-budget.js'
import { GroupTurns } from './group-turns.js'
import { LiveAdmission, type Refusal } from './live-admission.js'
import { subscriptionKey, type LiveConnection, type Subscription } from './live-connection.js'
import { CHUNK, Replays } from './replays.js'
import { ShapeCounts, amountTopic, filterTopic, topicsOf } from './topics.js'

export interface LiveHubOptions {
  app: TemplatedApp
  store: Store
  tokens: TokenCache
  limits: LiveLimits
  metrics: Metrics
  logger: Logger
  /** Where publishing starts: the store's end when absent (a server thread passes the end it read before any report: server-threads). */
  publishedEnd?: Buffer
  /** With server threads: the connection caps hold for all threads together, counted here. */
  connections?: SharedConnections
}

/** Messages a WebSocket group gets per loop turn: about 15 KB of 624-byte settlements, under uWS's 16 KB cork buffer and its 32. */
const GROUP_TURN_MESSAGES = 24
/** Past this many held messages, all are published at once (bounds what the hub holds). */
const MAX_HELD = 50_000
const NO_ID = ''

export class LiveHub implements IndexerListener {
  #o: LiveHubOptions
  /** Exclusive end of what has been published: replays read up to here. */
  #publishedEnd: Buffer
  #admission: LiveAdmission
  /** Every open connection (the admission's set). */
  #connections: Set<LiveConnection>
  /** Filter topic → subscription id (or NO_ID) → number of live WebSocket subscriptions. */
  #wsGroups = new Map<string, Map<string, number>>()
  #sseGroups = new Map<string, Set<LiveConnection>>()
  /** Field topic → groups with amount bounds under it (their topic → live subscriptions in it). */
  #amountGroups = new Map<string, Map<string, { filter: SettlementFilter; live: number }>>()
  #shapes = new ShapeCounts()
  #replays: Replays
  #subscriptionCount = 0
  #turns: GroupTurns
  #budget: BufferBudget
  #closed = false
  #heartbeat: NodeJS.Timeout
  #sent
  #slowCloses

  constructor(options: LiveHubOptions) {
    this.#o = options
    // At start-up everything stored counts as published.
    this.#publishedEnd = options.publishedEnd ?? storedEnd(options.store)
    this.#budget = new BufferBudget(options.limits.maxTotalBufferedBytes)
    this.#turns = new GroupTurns({
      app: options.app,
      perTurn: GROUP_TURN_MESSAGES,
      sent: (deliveries, kind) => deliveries > 0 && this.#sent(deliveries, { channel: 'websocket', type: kind }),
      afterTurn: () => this.#afterHeldTurn(),
    })
    this.#admission = new LiveAdmission(options.limits, options.connections)
    this.#connections = this.#admission.connections
    this.#replays = new Replays({
      store: options.store,
      tokens: options.tokens,
      limits: options.limits,
      publishedEnd: () => this.#publishedEnd,
      held: () => this.#turns.pending,
      noteBuffered: (conn) => {
        const buffered = this.#budget.note(conn, Date.now())
        if (this.#budget.over) this.#enforceBudget()
        return buffered
      },
      goLive: (sub) => this.#goLive(sub),
      sent: (count, labels) => this.#sent(count, labels),
    })
    const { metrics } = options
    this.#sent = metrics.counter('live_messages_sent_total', 'Settlement and removal messages sent to live subscribers, by channel')
    this.#slowCloses = metrics.counter(
      'live_slow_consumer_closes_total',
      'Live connections closed as slow consumers, by the bound they passed: their own (connection) or all connections together (total)',
    )
    metrics.collected('live_websocket_connections', 'Open WebSocket connections on /stream', () => this.#admission.websocketCount)
    metrics.collected('live_sse_connections', 'Open SSE responses on /events/stream', () => this.#admission.sseCount)
    metrics.collected('live_subscriptions', 'Live subscriptions, replaying or live', () => this.#subscriptionCount)
    metrics.collected('live_buffered_bytes', 'Unsent bytes of all live connections (SSE: an upper bound)', () => {
      const now = Date.now()
      for (const conn of this.#connections) this.#budget.note(conn, now)
      return this.#budget.total
    })
    this.#heartbeat = setInterval(() => this.#keepSseAlive(), options.limits.sseHeartbeatSeconds * 1000)
    this.#heartbeat.unref()
  }

  get connectionCount(): number {
    return this.#connections.size
  }

  /** Why a new connection from `address` is refused: the server's cap, or the address's; `undefined`: welcome. */
  refusal(address: string): Refusal | undefined {
    return this.#closed ? 'server' : this.#admission.refusal(address)
  }

  add(conn: LiveConnection): void {
    this.#admission.admit(conn)
  }

  /** The connection closed: forget it and its subscriptions (uWS already left its topics). */
  drop(conn: LiveConnection): void {
    for (const sub of conn.subscriptions.values()) this.#forget(sub)
    conn.subscriptions.clear()
    this.#budget.forget(conn)
    this.#admission.release(conn)
  }

  /** The position of the last published settlement: a subscription without `since` starts after it. */
  liveCursor(): string {
    return cursorBefore(this.#publishedEnd)
  }

  /** Starts a subscription: replays from `since` when given, then delivers live. The caller acknowledged it. */
  subscribe(conn: LiveConnection, id: string | undefined, filter: SettlementFilter, since: Position | undefined): Subscription {
    const { shape, topic: fieldTopic } = filterTopic(filter)
    const topic = amountTopic(fieldTopic, filter)
    const sub: Subscription = { conn, id, filter, shape, topic, fieldTopic, from: this.#publishedEnd, state: 'replaying' }
    conn.subscriptions.set(subscriptionKey(id, topic), sub)
    this.#subscriptionCount++
    if (since === undefined && this.#turns.pending === 0) this.#goLive(sub)
    else {
      // With messages held back, even a subscription without `since` starts as a replay from the end.
      if (since !== undefined) sub.from = boundAfter(since)
      this.#replays.start(sub)
    }
    return sub
  }

  unsubscribe(sub: Subscription): void {
    sub.conn.subscriptions.delete(subscriptionKey(sub.id, sub.topic))
    this.#forget(sub)
  }

  /** The connection drained: continue its paused replays while it stays below half the bound. */
  resume(conn: LiveConnection): void {
    this.#replays.resume(conn)
  }

  committed(settlements: StoredSettlement[]): void {
    if (this.#closed) return
    this.#turns.startTurn()
    for (let i = 0; i < settlements.length; i += CHUNK) {
      const end = Math.min(i + CHUNK, settlements.length)
      // With no subscription nothing is rendered, not even the cursor: ingest pays nothing for the hub.
      if (this.#shapes.active.length > 0) {
        for (let k = i; k < end; k++) this.#publish('SETTLEMENT', settlements[k]!, cursorOf(settlements[k]!))
      }
      this.#publishedEnd = boundAfter(settlements[end - 1]!)
      this.#replays.releaseWaiting()
      this.#checkBuffers()
    }
    if (this.#turns.pending > MAX_HELD) this.#turns.flush()
  }

  /** Settlements taken back by a reorg, newest first. */
  removed(settlements: StoredSettlement[]): void {
    if (this.#closed) return
    // Settlements before the removals go out first, all of them.
    this.#turns.flush()
    this.#turns.startTurn()
    for (const s of settlements) {
      const cursor = cursorOf(positionBefore(s))
      this.#publish('REMOVED', s, cursor)
      this.#replays.rewind(s, cursor)
    }
    const oldest = settlements[settlements.length - 1]
    if (oldest) {
      const key = boundAt(oldest)
      if (Buffer.compare(key, this.#publishedEnd) < 0) this.#publishedEnd = key
      this.#replays.pullBackTo(this.#publishedEnd)
    }
    this.#checkBuffers()
  }

  /** Server shutdown: ends every connection. */
  close(): void {
    this.#closed = true
    clearInterval(this.#heartbeat)
    this.#replays.close()
    this.#turns.close()
    for (const conn of [...this.#connections]) conn.end()
  }

  #publish(kind: EventKind, s: StoredSettlement, cursor: string): void {
    if (this.#shapes.active.length === 0) return
    const values = fieldValuesOf(s)
    let json: string | undefined
    let frame: string | undefined
    const deliver = (topic: string) => {
        const ids = this.#wsGroups.get(topic)
        if (ids) {
          json ??= settlementText(s, this.#o.tokens)
          for (const id of ids.keys()) this.#turns.publish(`${topic}#${id}`, kind, eventMessage(kind, json, cursor, id === NO_ID ? undefined : id))
        }
        const responses = this.#sseGroups.get(topic)
        if (responses) {
          json ??= settlementText(s, this.#o.tokens)
          frame ??= sseFrame(kind, json, cursor)
          for (const conn of responses) conn.send(frame)
          this.#sent(responses.size, { channel: 'sse', type: kind })
        }
    }
    for (const shape of this.#shapes.active) {
      for (const topic of topicsOf(shape, values)) {
        deliver(topic)
        const bounded = this.#amountGroups.get(topic)
        if (bounded) for (const [group, { filter }] of bounded) if (amountInRange(s.amount, filter)) deliver(group)
      }
    }
  }

  /** Held messages went out: check the buffers, and once none are held, let parked replays go on to live. */
  #afterHeldTurn(): void {
    this.#checkBuffers()
    if (this.#turns.pending > 0) {
      // Someone waits to join: the rest goes out now, or a stream of large blocks could keep it waiting.
      // (The flush comes back here with nothing held.)
      if (this.#replays.handoffsWaiting) this.#turns.flush()
      return
    }
    this.#replays.releaseHandoffs()
  }

  #goLive(sub: Subscription): void {
    sub.state = 'live'
    if (sub.conn.channel === 'websocket') {
      const id = sub.id ?? NO_ID
      let ids = this.#wsGroups.get(sub.topic)
      if (!ids) this.#wsGroups.set(sub.topic, (ids = new Map()))
      ids.set(id, (ids.get(id) ?? 0) + 1)
      sub.conn.joinTopic!(`${sub.topic}#${id}`)
    } else {
      let responses = this.#sseGroups.get(sub.topic)
      if (!responses) this.#sseGroups.set(sub.topic, (responses = new Set()))
      responses.add(sub.conn)
    }
    if (sub.topic !== sub.fieldTopic) {
      let bounded = this.#amountGroups.get(sub.fieldTopic)
      if (!bounded) this.#amountGroups.set(sub.fieldTopic, (bounded = new Map()))
      const group = bounded.get(sub.topic)
      if (group) group.live++
      else bounded.set(sub.topic, { filter: sub.filter, live: 1 })
    }
    this.#shapes.add(sub.shape, 1)
  }

  #forget(sub: Subscription): void {
    if (sub.state === 'dropped') return
    const wasLive = sub.state === 'live'
    sub.state = 'dropped'
    this.#subscriptionCount--
    this.#replays.forget(sub)
    if (!wasLive) return
    if (sub.conn.channel === 'websocket') {
      const id = sub.id ?? NO_ID
      const ids = this.#wsGroups.get(sub.topic)!
      const left = ids.get(id)! - 1
      if (left > 0) ids.set(id, left)
      else ids.delete(id)
      if (ids.size === 0) this.#wsGroups.delete(sub.topic)
      if (sub.conn.open) sub.conn.leaveTopic!(`${sub.topic}#${id}`)
    } else {
      const responses = this.#sseGroups.get(sub.topic)!
      responses.delete(sub.conn)
      if (responses.size === 0) this.#sseGroups.delete(sub.topic)
    }
    if (sub.topic !== sub.fieldTopic) {
      const bounded = this.#amountGroups.get(sub.fieldTopic)!
      const group = bounded.get(sub.topic)!
      if (--group.live === 0) bounded.delete(sub.topic)
      if (bounded.size === 0) this.#amountGroups.delete(sub.fieldTopic)
    }
    this.#shapes.add(sub.shape, -1)
  }

  /**
   * uWS reports no per-socket event when a publish builds up backpressure, so the hub checks every
   * connection after each publish step: one native call per WebSocket (about 1 ms per 10,000).
   */
  #checkBuffers(): void {
    const max = this.#o.limits.maxBufferedBytes
    const now = Date.now()
    for (const conn of this.#connections) {
      if (this.#budget.note(conn, now) > max) this.closeSlow(conn)
    }
    if (this.#budget.over) this.#enforceBudget()
  }

  /** The total looks past the budget: read every connection, then close the oldest slow consumers until within it. */
  #enforceBudget(): void {
    const now = Date.now()
    for (const conn of this.#connections) this.#budget.note(conn, now)
    for (const conn of this.#budget.slowestFirst(this.#connections)) {
      if (!this.#budget.over) return
      this.closeSlow(conn, 'total')
    }
  }

  closeSlow(conn: LiveConnection, bound: SlowBound = 'connection'): void {
    if (!conn.open) return
    this.#slowCloses(1, { channel: conn.channel, bound })
    this.#o.logger.info('closing a slow live consumer', { channel: conn.channel, buffered: conn.buffered(), bound })
    // Counted out now: the connection's own close may come later.
    this.#budget.forget(conn)
    conn.closeSlow(bound)
  }

  #keepSseAlive(): void {
    for (const conn of this.#connections) if (conn.channel === 'sse') conn.send(': keepalive\n\n')
  }
}
