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
 * - Backpressure: replays pause at half of `maxBufferedBytes` and resume on drain; a connection whose
 *   unsent bytes pass `maxBufferedBytes` is closed as a slow consumer (WebSocket close 4008), and so are
 *   the oldest slow consumers while all connections together hold more than `maxTotalBufferedBytes`
 *   (buffer-budget.ts).
 * - Admission: at most `maxConnections` live connections, `maxConnectionsPerAddress` of them from one address.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { LiveLimits } from '../../../config/index.js'
import type { IndexerListener } from '../../indexer/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { Metrics } from '../../../platform/observability/index.js'
import { ConnectionsPerAddress, type SharedConnections } from '../../../platform/limits/index.js'
import { amountInRange, matchingInRange, positionBefore, storedEnd, type SettlementFilter, type TokenCache } from '../../query/index.js'
import { boundAfter, boundAt, cursorBefore, cursorOf, fieldValuesOf, settlementText } from '../../query/index.js'
import type { Position, Store, StoredSettlement } from '../../store/index.js'
import { BufferBudget, type BudgetedConnection, type SlowBound } from './buffer-budget.js'
import { GroupTurns } from './group-turns.js'
import { eventMessage, sseFrame, type EventKind } from './messages.js'
import { ShapeCounts, amountTopic, filterTopic, topicsOf } from './topics.js'

export type Channel = 'websocket' | 'sse'

export interface LiveConnection extends BudgetedConnection {
  readonly channel: Channel
  /** The client's IP address, for the per-address cap. */
  readonly address: string
  /** Keyed by `subscriptionKey`. */
  readonly subscriptions: Map<string, Subscription>
  readonly open: boolean
  /** Unsent bytes: exact for a WebSocket, an upper bound for SSE. */
  buffered(): number
  /** Writes a message now (replay and acknowledgements), corked. */
  send(text: string): void
  cork(fn: () => void): void
  /** WebSocket only: membership of uWS topics. */
  joinTopic?(topic: string): void
  leaveTopic?(topic: string): void
  /** Ends the connection as a slow consumer, past its own bound or as one of the oldest past the total. */
  closeSlow(bound: SlowBound): void
  /** Server shutdown. */
  end(): void
}

export interface Subscription {
  readonly conn: LiveConnection
  readonly id: string | undefined
  readonly filter: SettlementFilter
  readonly shape: number
  /** The group it is delivered in: its field topic, with its amount bounds when it has some (topics.ts `amountTopic`). */
  readonly topic: string
  /** The topic of its field values alone: what a settlement's field values find by hash. */
  readonly fieldTopic: string
  /** While replaying or waiting: the first primary key not yet delivered. */
  from: Buffer
  state: 'waiting' | 'replaying' | 'paused' | 'live' | 'dropped'
}

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

/** Settlements per replay chunk, and per publish step between backpressure checks. */
const CHUNK = 256
/** Messages a WebSocket group gets per loop turn: about 15 KB of 624-byte settlements, under uWS's 16 KB cork buffer and its 32. */
const GROUP_TURN_MESSAGES = 24
/** Past this many held messages, all are published at once (bounds what the hub holds). */
const MAX_HELD = 50_000
const NO_ID = ''

/** A subscription's key within its connection: its id, or its filter when it has none. */
export const subscriptionKey = (id: string | undefined, topic: string) => (id === undefined ? `\0${topic}` : id)

export class LiveHub implements IndexerListener {
  #o: LiveHubOptions
  /** Exclusive end of what has been published: replays read up to here. */
  #publishedEnd: Buffer
  #connections = new Set<LiveConnection>()
  #websockets = new Set<LiveConnection>()
  /** Filter topic → subscription id (or NO_ID) → number of live WebSocket subscriptions. */
  #wsGroups = new Map<string, Map<string, number>>()
  #sseGroups = new Map<string, Set<LiveConnection>>()
  /** Field topic → groups with amount bounds under it (their topic → live subscriptions in it). */
  #amountGroups = new Map<string, Map<string, { filter: SettlementFilter; live: number }>>()
  #shapes = new ShapeCounts()
  #replaying = new Set<Subscription>()
  /** Replays due a chunk, in turn order; `#replayTurn` is the next turn when one is scheduled. */
  #replayQueue = new Set<Subscription>()
  #replayTurn: NodeJS.Immediate | undefined
  /** Subscriptions whose `since` is past the published end. */
  #waiting = new Set<Subscription>()
  #subscriptionCount = 0
  #turns: GroupTurns
  /** Replays that reached the published end while messages were held: they go on when none are. */
  #handoffs = new Set<Subscription>()
  #budget: BufferBudget
  /** Counts live connections against the caps: this hub's own, or every server thread's together. */
  #caps: Pick<SharedConnections, 'refusal' | 'add' | 'remove'>
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
    this.#caps = options.connections ?? this.#ownCaps()
    const { metrics } = options
    this.#sent = metrics.counter('live_messages_sent_total', 'Settlement and removal messages sent to live subscribers, by channel')
    this.#slowCloses = metrics.counter(
      'live_slow_consumer_closes_total',
      'Live connections closed as slow consumers, by the bound they passed: their own (connection) or all connections together (total)',
    )
    metrics.collected('live_websocket_connections', 'Open WebSocket connections on /stream', () => this.#websockets.size)
    metrics.collected('live_sse_connections', 'Open SSE responses on /events/stream', () => this.#connections.size - this.#websockets.size)
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
  refusal(address: string): 'server' | 'address' | undefined {
    return this.#closed ? 'server' : this.#caps.refusal(address)
  }

  #ownCaps(): Pick<SharedConnections, 'refusal' | 'add' | 'remove'> {
    const addresses = new ConnectionsPerAddress(this.#o.limits.maxConnectionsPerAddress)
    return {
      refusal: (address) => (this.#connections.size >= this.#o.limits.maxConnections ? 'server' : addresses.admits(address) ? undefined : 'address'),
      add: (address) => addresses.add(address),
      remove: (address) => addresses.remove(address),
    }
  }

  add(conn: LiveConnection): void {
    this.#connections.add(conn)
    this.#caps.add(conn.address)
    if (conn.channel === 'websocket') this.#websockets.add(conn)
  }

  /** The connection closed: forget it and its subscriptions (uWS already left its topics). */
  drop(conn: LiveConnection): void {
    for (const sub of conn.subscriptions.values()) this.#forget(sub)
    conn.subscriptions.clear()
    this.#budget.forget(conn)
    if (this.#connections.delete(conn)) this.#caps.remove(conn.address)
    this.#websockets.delete(conn)
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
      this.#replaying.add(sub)
      this.#queueReplay(sub)
    }
    return sub
  }

  unsubscribe(sub: Subscription): void {
    sub.conn.subscriptions.delete(subscriptionKey(sub.id, sub.topic))
    this.#forget(sub)
  }

  /** The connection drained: continue its paused replays while it stays below half the bound. */
  resume(conn: LiveConnection): void {
    for (const sub of conn.subscriptions.values()) {
      if (sub.state === 'paused' && conn.buffered() < this.#o.limits.maxBufferedBytes / 2) {
        sub.state = 'replaying'
        this.#queueReplay(sub)
      }
    }
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
      this.#releaseWaiting()
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
      this.#rewindReplays(s, cursor)
    }
    const oldest = settlements[settlements.length - 1]
    if (oldest) {
      const key = boundAt(oldest)
      if (Buffer.compare(key, this.#publishedEnd) < 0) this.#publishedEnd = key
      // A replay past the new end had passed only what is now gone: it continues from the end, it does
      // not wait there as a `since` from another replica would.
      for (const sub of this.#replaying) if (Buffer.compare(sub.from, this.#publishedEnd) > 0) sub.from = this.#publishedEnd
    }
    this.#checkBuffers()
  }

  /** Server shutdown: ends every connection. */
  close(): void {
    this.#closed = true
    clearInterval(this.#heartbeat)
    clearImmediate(this.#replayTurn)
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

  #queueReplay(sub: Subscription): void {
    this.#replayQueue.add(sub)
    this.#replayTurn ??= setImmediate(() => this.#takeReplayTurn())
  }

  /** Chunks in queue order until the turn's candidates are read; a replay with more to do queues again. */
  #takeReplayTurn(): void {
    this.#replayTurn = undefined
    let budget = this.#o.limits.replayScanPerTurn
    for (const sub of this.#replayQueue) {
      if (budget <= 0) break
      this.#replayQueue.delete(sub)
      budget -= this.#replayStep(sub, budget)
    }
    if (this.#replayQueue.size > 0 && !this.#closed) this.#replayTurn ??= setImmediate(() => this.#takeReplayTurn())
  }

  /**
   * One chunk of a replay, reading at most `maxScanned` candidates; returns how many it read. The chunk
   * that reaches the published end switches the subscription to live in the same synchronous turn.
   */
  #replayStep(sub: Subscription, maxScanned: number): number {
    if (sub.state !== 'replaying' || !sub.conn.open) return 0
    if (Buffer.compare(sub.from, this.#publishedEnd) > 0) {
      sub.state = 'waiting'
      this.#replaying.delete(sub)
      this.#waiting.add(sub)
      return 0
    }
    const { conn } = sub
    const { settlements: found, next, scanned } = matchingInRange(this.#o.store, sub.filter, sub.from, this.#publishedEnd, CHUNK, maxScanned)
    if (found.length > 0) {
      const tokens = this.#o.tokens
      conn.cork(() => {
        for (const s of found) {
          const json = settlementText(s, tokens)
          const cursor = cursorOf(s)
          conn.send(conn.channel === 'websocket' ? eventMessage('SETTLEMENT', json, cursor, sub.id) : sseFrame('SETTLEMENT', json, cursor))
        }
      })
      this.#sent(found.length, { channel: conn.channel, type: 'SETTLEMENT' })
    }
    if (next) sub.from = next
    const buffered = this.#budget.note(conn, Date.now())
    if (this.#budget.over) this.#enforceBudget()
    if (!conn.open || sub.state !== 'replaying') return scanned
    if (!next && this.#turns.pending > 0) {
      // Read up to the end: it goes on from there once nothing is held.
      sub.from = this.#publishedEnd
      this.#handoffs.add(sub)
    } else if (!next) {
      this.#replaying.delete(sub)
      this.#goLive(sub)
    } else if (buffered >= this.#o.limits.maxBufferedBytes / 2) {
      sub.state = 'paused'
    } else {
      this.#queueReplay(sub)
    }
    return scanned
  }

  /** Held messages went out: check the buffers, and once none are held, let parked replays go on to live. */
  #afterHeldTurn(): void {
    this.#checkBuffers()
    if (this.#turns.pending > 0) {
      // Someone waits to join: the rest goes out now, or a stream of large blocks could keep it waiting.
      // (The flush comes back here with nothing held.)
      if (this.#handoffs.size > 0) this.#turns.flush()
      return
    }
    for (const sub of this.#handoffs) {
      this.#handoffs.delete(sub)
      if (sub.state === 'replaying') this.#queueReplay(sub)
    }
  }

  /** The published end moved on: waiting subscriptions it reached replay from their `since`. */
  #releaseWaiting(): void {
    for (const sub of this.#waiting) {
      if (Buffer.compare(sub.from, this.#publishedEnd) > 0) continue
      this.#waiting.delete(sub)
      sub.state = 'replaying'
      this.#replaying.add(sub)
      this.#queueReplay(sub)
    }
  }

  /** A reorg took back `s`: replays that already sent it are told and step back before it. */
  #rewindReplays(s: StoredSettlement, cursor: string): void {
    if (this.#replaying.size === 0) return
    const key = boundAt(s)
    const values = fieldValuesOf(s)
    for (const sub of this.#replaying) {
      if (Buffer.compare(key, sub.from) >= 0 || !topicsOf(sub.shape, values).includes(sub.fieldTopic) || !amountInRange(s.amount, sub.filter)) continue
      const json = settlementText(s, this.#o.tokens)
      sub.conn.send(sub.conn.channel === 'websocket' ? eventMessage('REMOVED', json, cursor, sub.id) : sseFrame('REMOVED', json, cursor))
      sub.from = key
    }
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
    this.#replaying.delete(sub)
    this.#replayQueue.delete(sub)
    this.#handoffs.delete(sub)
    this.#waiting.delete(sub)
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
