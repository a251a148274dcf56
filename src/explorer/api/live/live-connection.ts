/**
 * What the hub, its admission and its replays know of a live connection and of each subscription on it,
 * whatever the channel: the WebSocket and SSE routes implement `LiveConnection`, the hub keeps the rest.
 */
import type { SettlementFilter } from '../../query/index.js'
import type { BudgetedConnection, SlowBound } from './buffer-budget.js'

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

/** A subscription's key within its connection: its id, or its filter when it has none. */
export const subscriptionKey = (id: string | undefined, topic: string) => (id === undefined ? `\0${topic}` : id)
