/**
 * Publishing to WebSocket groups (uWS topics) at most `perTurn` messages per group per event-loop turn.
 *
 * uWS queues a turn's publishes per subscriber and writes them corked, one send per 16 KB, but drains a
 * subscriber early once it holds 32 messages, which costs a send more: 40 messages of one block went out
 * in 3 sends (26 | 6 | 8) where 2 do, and a send costs ~10 µs of kernel time on loopback whatever its size
 * (bench/fanout-block-probe.ts). So once a group has had `perTurn` messages in a turn, its next ones wait
 * for the next turn, in order, behind any it already holds; groups with fewer are not held back, so a
 * filtered subscriber's share of a block still goes out in one send.
 *
 * While anything is held back, a group's published end is behind the hub's: the hub hands no new
 * subscription over to live until `pending` is 0 (live-hub.ts).
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { EventKind } from '../../../wire/index.js'

interface Held {
  kind: EventKind
  message: string
}

export interface GroupTurnsOptions {
  app: TemplatedApp
  perTurn: number
  /** Deliveries made (subscribers reached), by kind. */
  sent(deliveries: number, kind: EventKind): void
  /** A later turn published held messages (`pending` may now be 0). */
  afterTurn(): void
}

export class GroupTurns {
  #o: GroupTurnsOptions
  /** Group → messages held for later turns, oldest first. */
  #held = new Map<string, Held[]>()
  #pending = 0
  #sentThisTurn = new Map<string, number>()
  #turn: NodeJS.Immediate | undefined

  constructor(options: GroupTurnsOptions) {
    this.#o = options
  }

  /** Messages held for later turns. */
  get pending(): number {
    return this.#pending
  }

  /** A new turn of publishing (a commit or a reorg): every group may have `perTurn` messages again. */
  startTurn(): void {
    this.#sentThisTurn.clear()
  }

  /** Publishes now, or holds the message behind the group's earlier ones when it has some or used its turn. */
  publish(group: string, kind: EventKind, message: string): void {
    const held = this.#held.get(group)
    const sent = this.#sentThisTurn.get(group) ?? 0
    if (held || sent >= this.#o.perTurn) {
      if (held) held.push({ kind, message })
      else this.#held.set(group, [{ kind, message }])
      this.#pending++
      this.#turn ??= setImmediate(() => this.#publishHeld(this.#o.perTurn))
      return
    }
    this.#sentThisTurn.set(group, sent + 1)
    this.#o.sent(this.#o.app.numSubscribers(group), kind)
    this.#o.app.publish(group, message)
  }

  /** Publishes everything held, now: before a reorg's removals, or when too much is held. */
  flush(): void {
    if (this.#pending > 0) this.#publishHeld(Infinity)
  }

  close(): void {
    clearImmediate(this.#turn)
    this.#held.clear()
    this.#pending = 0
  }

  #publishHeld(limit: number): void {
    clearImmediate(this.#turn)
    this.#turn = undefined
    this.#sentThisTurn.clear()
    for (const [group, held] of this.#held) {
      const take = Math.min(limit, held.length)
      const subscribers = this.#o.app.numSubscribers(group)
      for (let i = 0; i < take; i++) {
        this.#o.app.publish(group, held[i]!.message)
        this.#o.sent(subscribers, held[i]!.kind)
      }
      this.#sentThisTurn.set(group, take)
      if (take === held.length) this.#held.delete(group)
      else held.splice(0, take)
      this.#pending -= take
    }
    if (this.#pending > 0) this.#turn = setImmediate(() => this.#publishHeld(this.#o.perTurn))
    this.#o.afterTurn()
  }
}
