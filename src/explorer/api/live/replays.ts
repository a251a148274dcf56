/**
 * The replays of `since` and where they stand, for the hub (live-hub.ts says why each rule holds):
 * - A replay reads the store in chunks up to the hub's published end, never to the LMDB head; the chunk
 *   that reaches it hands the subscription to the hub (`goLive`) in the same synchronous turn.
 * - A `since` past the published end waits, subscribed to nothing, until the end passes it.
 * - While the hub holds group messages back, a replay that reached the end parks as a handoff and goes on
 *   once nothing is held.
 * - Replays take turns: each turn of the event loop reads at most `replayScanPerTurn` candidates, chunk by
 *   chunk in queue order, then lets everyone else be served.
 * - A replay pauses at half of `maxBufferedBytes` unsent and resumes on drain.
 * - A reorg that takes back a settlement a replay already sent tells it and steps the replay back.
 */
import type { LiveLimits } from '../../../config/index.js'
import { amountInRange, matchingInRange, type TokenCache } from '../../query/index.js'
import { boundAt, cursorOf, fieldValuesOf, settlementText } from '../../query/index.js'
import type { Store, StoredSettlement } from '../../store/index.js'
import { eventMessage, sseFrame, type EventKind } from '../../../wire/index.js'
import type { Channel, LiveConnection, Subscription } from './live-connection.js'
import { topicsOf } from './topics.js'

/** Settlements per replay chunk. */
export const CHUNK = 256

/** What replays need of the hub. */
export interface ReplayHost {
  store: Store
  tokens: TokenCache
  limits: Pick<LiveLimits, 'replayScanPerTurn' | 'maxBufferedBytes'>
  /** Exclusive end of what the hub has published. */
  publishedEnd(): Buffer
  /** Group messages the hub holds back for a later turn. */
  held(): number
  /** Reads the connection's unsent bytes into the budget (closing slow consumers past it); returns them. */
  noteBuffered(conn: LiveConnection): number
  /** The replay reached the published end: the subscription now takes live messages. */
  goLive(sub: Subscription): void
  sent(count: number, labels: { channel: Channel; type: EventKind }): void
}

export class Replays {
  #replaying = new Set<Subscription>()
  /** Replays due a chunk, in turn order; `#turn` is the next turn when one is scheduled. */
  #due = new Set<Subscription>()
  #turn: NodeJS.Immediate | undefined
  /** Subscriptions whose `since` is past the published end. */
  #waiting = new Set<Subscription>()
  /** Replays that reached the published end while messages were held: they go on when none are. */
  #handoffs = new Set<Subscription>()
  #closed = false

  constructor(private readonly host: ReplayHost) {}

  /** Some replay waits for the held messages to go out. */
  get handoffsWaiting(): boolean {
    return this.#handoffs.size > 0
  }

  /** Starts replaying `sub` from its `from`. */
  start(sub: Subscription): void {
    this.#replaying.add(sub)
    this.#queue(sub)
  }

  /** The connection drained: continue its paused replays while it stays below half the bound. */
  resume(conn: LiveConnection): void {
    for (const sub of conn.subscriptions.values()) {
      if (sub.state === 'paused' && conn.buffered() < this.host.limits.maxBufferedBytes / 2) {
        sub.state = 'replaying'
        this.#queue(sub)
      }
    }
  }

  /** The published end moved on: waiting subscriptions it reached replay from their `since`. */
  releaseWaiting(): void {
    const end = this.host.publishedEnd()
    for (const sub of this.#waiting) {
      if (Buffer.compare(sub.from, end) > 0) continue
      this.#waiting.delete(sub)
      sub.state = 'replaying'
      this.#replaying.add(sub)
      this.#queue(sub)
    }
  }

  /** Nothing is held any more: parked replays go on to the end and live. */
  releaseHandoffs(): void {
    for (const sub of this.#handoffs) {
      this.#handoffs.delete(sub)
      if (sub.state === 'replaying') this.#queue(sub)
    }
  }

  /** A reorg took back `s`: replays that already sent it are told and step back before it. */
  rewind(s: StoredSettlement, cursor: string): void {
    if (this.#replaying.size === 0) return
    const key = boundAt(s)
    const values = fieldValuesOf(s)
    for (const sub of this.#replaying) {
      if (Buffer.compare(key, sub.from) >= 0 || !topicsOf(sub.shape, values).includes(sub.fieldTopic) || !amountInRange(s.amount, sub.filter)) continue
      const json = settlementText(s, this.host.tokens)
      sub.conn.send(sub.conn.channel === 'websocket' ? eventMessage('REMOVED', json, cursor, sub.id) : sseFrame('REMOVED', json, cursor))
      sub.from = key
    }
  }

  /**
   * The published end moved back (a reorg). A replay past it had passed only what is now gone: it continues
   * from the end, it does not wait there as a `since` from another replica would.
   */
  pullBackTo(end: Buffer): void {
    for (const sub of this.#replaying) if (Buffer.compare(sub.from, end) > 0) sub.from = end
  }

  forget(sub: Subscription): void {
    this.#replaying.delete(sub)
    this.#due.delete(sub)
    this.#handoffs.delete(sub)
    this.#waiting.delete(sub)
  }

  close(): void {
    this.#closed = true
    clearImmediate(this.#turn)
  }

  #queue(sub: Subscription): void {
    this.#due.add(sub)
    this.#turn ??= setImmediate(() => this.#takeTurn())
  }

  /** Chunks in queue order until the turn's candidates are read; a replay with more to do queues again. */
  #takeTurn(): void {
    this.#turn = undefined
    let budget = this.host.limits.replayScanPerTurn
    for (const sub of this.#due) {
      if (budget <= 0) break
      this.#due.delete(sub)
      budget -= this.#step(sub, budget)
    }
    if (this.#due.size > 0 && !this.#closed) this.#turn ??= setImmediate(() => this.#takeTurn())
  }

  /**
   * One chunk of a replay, reading at most `maxScanned` candidates; returns how many it read. The chunk
   * that reaches the published end switches the subscription to live in the same synchronous turn.
   */
  #step(sub: Subscription, maxScanned: number): number {
    const { host } = this
    const end = host.publishedEnd()
    if (sub.state !== 'replaying' || !sub.conn.open) return 0
    if (Buffer.compare(sub.from, end) > 0) {
      sub.state = 'waiting'
      this.#replaying.delete(sub)
      this.#waiting.add(sub)
      return 0
    }
    const { conn } = sub
    const { settlements: found, next, scanned } = matchingInRange(host.store, sub.filter, sub.from, end, CHUNK, maxScanned)
    if (found.length > 0) {
      conn.cork(() => {
        for (const s of found) {
          const json = settlementText(s, host.tokens)
          const cursor = cursorOf(s)
          conn.send(conn.channel === 'websocket' ? eventMessage('SETTLEMENT', json, cursor, sub.id) : sseFrame('SETTLEMENT', json, cursor))
        }
      })
      host.sent(found.length, { channel: conn.channel, type: 'SETTLEMENT' })
    }
    if (next) sub.from = next
    const buffered = host.noteBuffered(conn)
    if (!conn.open || sub.state !== 'replaying') return scanned
    if (!next && host.held() > 0) {
      // Read up to the end: it goes on from there once nothing is held.
      sub.from = host.publishedEnd()
      this.#handoffs.add(sub)
    } else if (!next) {
      this.#replaying.delete(sub)
      host.goLive(sub)
    } else if (buffered >= host.limits.maxBufferedBytes / 2) {
      sub.state = 'paused'
    } else {
      this.#queue(sub)
    }
    return scanned
  }
}
