/**
 * The soak's live subscribers: WebSocket ones through the SDK's `ExplorerClient` (its reconnect and
 * `since` resume are what is under test) and SSE ones through `SseSubscriber` (Last-Event-ID), each with
 * a filter — everything, one recipient, one token, one acquirer — and all starting from the chain's first
 * position, so that each must end up holding exactly the chain's matching settlements.
 */
import type { Deployment } from '../../src/wire/index.js'
import { ExplorerClient } from '../../src/sdk/index.js'
import { encodeCursor } from '../../src/explorer/store/index.js'
import type { Hex, Settlement, SettlementFilter } from '../../src/wire/index.js'
import { FeedTally } from './feed-tally.js'
import { SseSubscriber } from './sse-subscriber.js'

export interface Subscriber {
  name: string
  channel: 'websocket' | 'sse'
  filter: SettlementFilter
  tally: FeedTally
  /** Whether it is connected to the explorer now. */
  connected(): boolean
  /** Drops its connection from the client side; it resumes by itself. */
  drop(): Promise<void>
  stop(): Promise<void>
}

export function matches(s: Settlement, filter: SettlementFilter): boolean {
  return Object.entries(filter).every(([field, value]) => String(s[field as keyof Settlement]).toLowerCase() === String(value).toLowerCase())
}

/** Filters the subscribers use, from the deployment: all, one recipient, one token, one acquirer. */
export function soakFilters(deployment: Deployment): { name: string; filter: SettlementFilter }[] {
  return [
    { name: 'all', filter: {} },
    { name: 'recipient', filter: { recipient: deployment.recipients[0]!.toLowerCase() as Hex } },
    { name: 'token', filter: { token: deployment.tokens[0]!.address.toLowerCase() as Hex } },
    { name: 'acquirer', filter: { acquirerId: deployment.acquirers[0]!.id.toLowerCase() as Hex } },
  ]
}

/** Before the first settlement of any chain: every settlement comes after it. */
const FROM_THE_START = encodeCursor(0, 0)

export async function startSdkSubscriber(baseUrl: string, name: string, filter: SettlementFilter, onError: (error: Error) => void): Promise<Subscriber> {
  const tally = new FeedTally()
  const client = new ExplorerClient({ baseUrl, reconnect: { initialDelayMs: 100, maxDelayMs: 2_000 }, onError })
  await client.connect()
  await client.onSettlement(filter, (s) => tally.delivered(s), { since: FROM_THE_START, onRemoved: (s) => tally.removed(s) }).ready
  return {
    name: `ws:${name}`,
    channel: 'websocket',
    filter,
    tally,
    connected: () => client.connected,
    async drop() {
      await client.disconnect()
      await client.connect()
    },
    stop: () => client.disconnect(),
  }
}

export function startSseSubscriber(baseUrl: string, name: string, filter: SettlementFilter): Subscriber & { sse: SseSubscriber } {
  const sse = new SseSubscriber(name, baseUrl, new URLSearchParams(filter as Record<string, string>), FROM_THE_START)
  sse.start()
  return {
    name: `sse:${name}`,
    channel: 'sse',
    filter,
    tally: sse.tally,
    sse,
    connected: () => sse.streaming,
    drop: async () => sse.drop(),
    stop: () => sse.stop(),
  }
}
