/**
 * The live half of the client: one WebSocket to `/stream` carrying every subscription, reopened with
 * backoff whenever it drops — on another replica when there are several (`replicas/replica-pool.ts`).
 * Each subscription keeps the cursor of the last settlement it delivered and is sent again with `since`
 * on every reconnect, so the server replays exactly what was missed; cursors are chain positions, valid
 * on every replica. A position watermark drops anything at or before what was already delivered, so an
 * overlapping replay (or a replica still behind that cursor) cannot reach a handler twice either.
 *
 * A subscription that has delivered nothing yet still needs a resume point, or a drop before its first
 * settlement would lose whatever matched during the outage: it is started with `since` = the explorer's
 * head cursor, read over REST just before subscribing.
 */
import { ExplorerError, ExplorerLiveError } from '../errors.js'
import type { Replica, ReplicaPool } from '../replicas/replica-pool.js'
import type { ReconnectOptions, Settlement, SettlementFilter, SettlementHandler, SubscribeOptions, Subscription } from '../types.js'
import { reconnectDelay } from './backoff.js'
import { encodeClientMessage, liveCloses, readServerMessage, subscriptionOf, type LiveClientMessage, type LiveServerMessage, type LiveSubscribeMessage } from '../../wire/index.js'
import { WS_OPEN, resolveWebSocket, type WebSocketLike } from './resolve-web-socket.js'

export interface LiveConnectionOptions {
  replicas: ReplicaPool
  reconnect: Required<ReconnectOptions>
  onError: (error: Error) => void
  /**
   * A cursor at or after the newest indexed settlement, if the explorer can give one. A subscription that
   * has delivered nothing yet is started from it, so that it has a resume point from the first moment.
   */
  headCursor: () => Promise<string | undefined>
}

/** A connection that stayed open this long counts as healthy: the next drop starts the backoff afresh. */
const STABLE_AFTER_MS = 5_000

interface Position {
  blockNumber: number
  logIndex: number
}

const isAfter = (a: Position, b: Position) => a.blockNumber > b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex > b.logIndex)

class LiveSubscription implements Subscription {
  cursor: string | undefined
  /** Position of the last settlement handed to the handler. */
  delivered: Position | undefined
  acknowledged = false
  readonly ready: Promise<void>
  #settle!: { resolve: () => void; reject: (error: Error) => void }

  constructor(
    readonly id: string,
    readonly filter: SettlementFilter,
    readonly handler: SettlementHandler,
    readonly options: SubscribeOptions,
    private readonly owner: LiveConnection,
  ) {
    this.cursor = options.since
    this.ready = new Promise<void>((resolve, reject) => (this.#settle = { resolve, reject }))
    // Awaiting `ready` is optional: an unobserved rejection must not crash the process.
    this.ready.catch(() => {})
  }

  acknowledge(cursor: string | undefined): void {
    this.cursor ??= cursor
    this.acknowledged = true
    this.#settle.resolve()
  }

  refuse(error: Error): void {
    this.#settle.reject(error)
  }

  unsubscribe(): void {
    this.owner.unsubscribe(this)
  }
}

export class LiveConnection {
  #socket: WebSocketLike | undefined
  /** Whether the user wants the connection open (between `connect()` and `disconnect()`). */
  #wanted = false
  /** Whether it has been open since the last `connect()`: before that, a failure rejects `connect()`. */
  #hasOpened = false
  #attempt = 0
  /** Replicas that could not be opened since `connect()`, before the first open: each is tried once. */
  #refused = new Set<Replica>()
  #openedAt = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #waiters: { resolve: () => void; reject: (error: Error) => void }[] = []
  #subscriptions = new Map<string, LiveSubscription>()
  #nextId = 1
  /** A head cursor read in flight, shared by the cursorless subscriptions sent meanwhile. */
  #head: Promise<string | undefined> | undefined

  constructor(private readonly options: LiveConnectionOptions) {}

  get isOpen(): boolean {
    return this.#socket?.readyState === WS_OPEN
  }

  connect(): Promise<void> {
    if (this.isOpen) return Promise.resolve()
    const opened = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }))
    if (!this.#wanted) {
      this.#wanted = true
      this.#hasOpened = false
      this.#attempt = 0
      this.#refused.clear()
      void this.#open()
    }
    return opened
  }

  disconnect(): Promise<void> {
    this.#wanted = false
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#settleWaiters(new ExplorerError('disconnect() was called before the connection opened'))
    const socket = this.#socket
    this.#socket = undefined
    if (!socket) return Promise.resolve()
    return new Promise((resolve) => {
      socket.onclose = () => resolve()
      socket.close(1000, 'client disconnect')
    })
  }

  subscribe(filter: SettlementFilter, handler: SettlementHandler, options: SubscribeOptions): Subscription {
    const subscription = new LiveSubscription(`s${this.#nextId++}`, filter, handler, options, this)
    this.#subscriptions.set(subscription.id, subscription)
    if (this.isOpen) this.#sendSubscribe(subscription)
    return subscription
  }

  unsubscribe(subscription: Subscription): void {
    const live = subscription as LiveSubscription
    if (this.#subscriptions.get(live.id) !== live) return
    this.#subscriptions.delete(live.id)
    if (!live.acknowledged) live.refuse(new ExplorerError('unsubscribed before the explorer acknowledged the subscription'))
    if (this.isOpen) this.#send({ type: 'UNSUBSCRIBE', id: live.id })
  }

  /** Drops every subscription delivering to `handler`; returns how many there were. */
  removeHandler(handler: SettlementHandler): number {
    const matching = [...this.#subscriptions.values()].filter((s) => s.handler === handler)
    for (const subscription of matching) this.unsubscribe(subscription)
    return matching.length
  }

  async #open(): Promise<void> {
    this.#timer = undefined
    let socket: WebSocketLike
    let replica: Replica
    try {
      const WebSocket = await resolveWebSocket()
      replica = (await this.options.replicas.pick(this.#hasOpened ? undefined : this.#refused))!
      if (!this.#wanted || this.#socket) return
      socket = new WebSocket(replica.wsUrl)
    } catch (error) {
      return this.#failed(error instanceof Error ? error : new ExplorerError(String(error)))
    }
    this.#socket = socket
    let opened = false
    socket.onopen = () => {
      opened = true
      this.#hasOpened = true
      this.#openedAt = Date.now()
      for (const subscription of this.#subscriptions.values()) this.#sendSubscribe(subscription)
      this.#settleWaiters()
    }
    socket.onmessage = (event) => this.#receive(event.data)
    // An error is always followed by a close, which decides what happens next.
    socket.onerror = () => {}
    socket.onclose = (event) => {
      if (this.#socket !== socket) return
      this.#socket = undefined
      // A subscriber that fell behind: the replica is fine, the client resumes there.
      if (event.code !== liveCloses.slowConsumer.code) this.options.replicas.failed(replica)
      if (opened) return this.#dropped()
      if (!this.#hasOpened) this.#refused.add(replica)
      this.#failed(new ExplorerLiveError('CONNECT_FAILED', `could not open ${replica.wsUrl} (close code ${event.code}${event.reason ? `, ${event.reason}` : ''})`))
    }
  }

  #failed(error: Error): void {
    // Before the first open, every replica gets one immediate try before `connect()` rejects.
    if (!this.#hasOpened && this.#wanted && this.#refused.size > 0 && this.#refused.size < this.options.replicas.replicas.length) {
      void this.#open()
      return
    }
    if (!this.#hasOpened) {
      this.#wanted = false
      this.#settleWaiters(error)
      return
    }
    this.options.onError(error)
    this.#scheduleReconnect()
  }

  #dropped(): void {
    if (Date.now() - this.#openedAt >= STABLE_AFTER_MS) this.#attempt = 0
    this.#scheduleReconnect()
  }

  #scheduleReconnect(): void {
    if (!this.#wanted) return
    const delay = reconnectDelay(this.#attempt++, this.options.reconnect)
    this.#timer = setTimeout(() => void this.#open(), delay)
  }

  #settleWaiters(error?: Error): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const waiter of waiters) {
      if (error) waiter.reject(error)
      else waiter.resolve()
    }
  }

  #sendSubscribe(subscription: LiveSubscription): void {
    if (subscription.cursor !== undefined) return this.#send(subscribeMessage(subscription))
    const socket = this.#socket
    this.#head ??= this.options
      .headCursor()
      .catch((error: unknown) => {
        this.options.onError(new ExplorerLiveError('NO_HEAD_CURSOR', `subscribing without a resume point: ${error instanceof Error ? error.message : String(error)}`))
        return undefined
      })
      .finally(() => (this.#head = undefined))
    void this.#head.then((head) => {
      if (this.#socket !== socket || this.#subscriptions.get(subscription.id) !== subscription) return
      subscription.cursor ??= head
      this.#send(subscribeMessage(subscription))
    })
  }

  #send(message: LiveClientMessage): void {
    this.#socket?.send(encodeClientMessage(message))
  }

  #receive(frame: unknown): void {
    const message = readServerMessage(frame)
    if (!message) {
      this.options.onError(new ExplorerLiveError('BAD_FRAME', `unreadable message from the explorer: ${String(frame).slice(0, 200)}`))
      return
    }
    const subscription = this.#subscriptionFor(message)
    switch (message.type) {
      case 'SETTLEMENT':
        if (subscription) this.#deliver(subscription, message.data, message.cursor)
        return
      case 'REMOVED':
        if (subscription) this.#remove(subscription, message.data, message.cursor)
        return
      case 'SUBSCRIBED':
        subscription?.acknowledge(message.cursor)
        return
      case 'UNSUBSCRIBED':
        return
      case 'ERROR': {
        const error = new ExplorerLiveError(message.error.code, message.error.message, subscriptionOf(message))
        if (subscription && !subscription.acknowledged) {
          this.#subscriptions.delete(subscription.id)
          subscription.refuse(error)
        } else this.options.onError(error)
        return
      }
    }
  }

  /** The subscription a message names; a message naming none goes to the only subscription, if there is one. */
  #subscriptionFor(message: LiveServerMessage): LiveSubscription | undefined {
    const id = subscriptionOf(message)
    if (id !== undefined) return this.#subscriptions.get(id)
    return this.#subscriptions.size === 1 ? this.#subscriptions.values().next().value : undefined
  }

  #deliver(subscription: LiveSubscription, event: Settlement, cursor: string): void {
    if (subscription.delivered && !isAfter(event, subscription.delivered)) return
    subscription.delivered = { blockNumber: event.blockNumber, logIndex: event.logIndex }
    subscription.cursor = cursor
    this.#call(() => subscription.handler(event, { cursor }))
  }

  #remove(subscription: LiveSubscription, event: Settlement, cursor: string): void {
    // The position may be filled again by the new branch: let a settlement there through once more, and
    // resume from before it.
    if (subscription.delivered && !isAfter(event, subscription.delivered)) {
      subscription.delivered = { blockNumber: event.blockNumber, logIndex: event.logIndex - 1 }
      subscription.cursor = cursor
    }
    const { onRemoved } = subscription.options
    if (onRemoved) this.#call(() => onRemoved(event))
  }

  /** A throwing handler is reported, and must not stop delivery to the others. */
  #call(fn: () => void): void {
    try {
      fn()
    } catch (error) {
      this.options.onError(error instanceof Error ? error : new ExplorerError(String(error)))
    }
  }
}

function subscribeMessage(subscription: LiveSubscription): LiveSubscribeMessage {
  const message: LiveSubscribeMessage = { type: 'SUBSCRIBE', channel: 'settlements', id: subscription.id }
  if (Object.keys(subscription.filter).length > 0) message.filter = subscription.filter
  if (subscription.cursor !== undefined) message.since = subscription.cursor
  return message
}
