/**
 * The live feed's protocol, written once for the three parties that speak it: the explorer's WebSocket
 * `/stream` and SSE `/events/stream` (SPEC §3.1, §3.3), the SDK's live connection, and the web page's
 * EventSource. The explorer writes messages with the encoders here, the clients read them with the
 * readers here, so a field renamed on one side fails the type check on the other.
 *
 * `cursor` in a message is always where a resume should start after: the settlement itself for
 * SETTLEMENT, the position just before the removed settlement for REMOVED.
 */
import type { Settlement, SettlementFilter } from './settlement.js'

export type EventKind = 'SETTLEMENT' | 'REMOVED'

/** Error codes of `ERROR` messages and SSE `error` events. */
export type LiveErrorCode =
  | 'INVALID_JSON'
  | 'INVALID_MESSAGE'
  | 'UNKNOWN_TYPE'
  | 'UNKNOWN_CHANNEL'
  | 'INVALID_FILTER'
  | 'INVALID_ID'
  | 'INVALID_CURSOR'
  | 'MESSAGE_TOO_LARGE'
  | 'TOO_MANY_SUBSCRIPTIONS'
  | 'DUPLICATE_SUBSCRIPTION'
  | 'UNKNOWN_SUBSCRIPTION'
  | 'RATE_LIMIT_EXCEEDED'
  | 'SLOW_CONSUMER'

export interface LiveError {
  code: LiveErrorCode
  message: string
}

/** Client → server. */
export interface LiveSubscribeMessage {
  type: 'SUBSCRIBE'
  channel: 'settlements'
  id?: string
  filter?: SettlementFilter
  since?: string
}

export interface LiveUnsubscribeMessage {
  type: 'UNSUBSCRIBE'
  id?: string
}

export type LiveClientMessage = LiveSubscribeMessage | LiveUnsubscribeMessage

/** Server → client. `subscription` on data echoes the SUBSCRIBE `id`; acknowledgements and errors carry it as `id`. */
export type LiveServerMessage =
  | { type: EventKind; data: Settlement; cursor: string; subscription?: string }
  /** `cursor` is where the subscription starts: resuming later with `since: cursor` misses and repeats nothing. */
  | { type: 'SUBSCRIBED'; channel: 'settlements'; id?: string; filter: SettlementFilter; since?: string; cursor: string }
  | { type: 'UNSUBSCRIBED'; ids: (string | null)[] }
  | { type: 'ERROR'; error: LiveError; id?: string }

/** WebSocket closes of `/stream`: after SLOW_CONSUMER the client resumes with `since`, on the same replica too. */
export const liveCloses = {
  slowConsumer: { code: 4008, reason: 'slow consumer: unsent messages passed the server bound; resume with since' },
  shutdown: { code: 1001, reason: 'server shutting down' },
} as const

/** SSE event names (`event:` lines) of `/events/stream`. */
export const sseEvents = { SETTLEMENT: 'settlement', REMOVED: 'removed', ERROR: 'error' } as const

// Encoders (the explorer). A settlement's JSON is rendered once and spliced into each message.

const subscriptionField = (id: string | undefined) => (id === undefined ? '' : `,"subscription":${JSON.stringify(id)}`)

export function eventMessage(kind: EventKind, json: string, cursor: string, id: string | undefined): string {
  return `{"type":"${kind}","data":${json},"cursor":"${cursor}"${subscriptionField(id)}}`
}

export function sseFrame(kind: EventKind, json: string, cursor: string): string {
  return `event: ${sseEvents[kind]}\nid: ${cursor}\ndata: ${json}\n\n`
}

export const errorMessage = (error: LiveError, id?: string) => JSON.stringify({ type: 'ERROR', error, ...(id === undefined ? {} : { id }) })

export const sseErrorFrame = (error: LiveError) => `event: ${sseEvents.ERROR}\ndata: ${JSON.stringify(error)}\n\n`

export function subscribedMessage(id: string | undefined, filter: SettlementFilter, since: string | undefined, cursor: string): string {
  return JSON.stringify({ type: 'SUBSCRIBED', channel: 'settlements', id, filter, since, cursor })
}

export const unsubscribedMessage = (ids: (string | null)[]) => JSON.stringify({ type: 'UNSUBSCRIBED', ids })

export const encodeClientMessage = (message: LiveClientMessage) => JSON.stringify(message)

// Readers (the clients). A frame they cannot use reads as `undefined`, never as a throw.

const SERVER_TYPES = new Set(['SETTLEMENT', 'REMOVED', 'SUBSCRIBED', 'UNSUBSCRIBED', 'ERROR'])

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

const parseJson = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A WebSocket text frame as one of the server's messages. */
export function readServerMessage(frame: unknown): LiveServerMessage | undefined {
  const message = parseJson(frame)
  if (!isObject(message) || typeof message.type !== 'string' || !SERVER_TYPES.has(message.type)) return undefined
  const m = message as LiveServerMessage
  if (m.type === 'SETTLEMENT' || m.type === 'REMOVED') return isObject(m.data) && typeof m.cursor === 'string' ? m : undefined
  if (m.type === 'ERROR') return isObject(m.error) && typeof m.error.code === 'string' && typeof m.error.message === 'string' ? m : undefined
  return m
}

/** The `data:` of an SSE `settlement` or `removed` event. */
export function readSseSettlement(data: unknown): Settlement | undefined {
  const settlement = parseJson(data)
  return isObject(settlement) ? (settlement as unknown as Settlement) : undefined
}

/** The subscription a message is about: `subscription` on data, `id` on acknowledgements and errors. */
export function subscriptionOf(message: LiveServerMessage): string | undefined {
  if ('subscription' in message && typeof message.subscription === 'string') return message.subscription
  if ('id' in message && typeof message.id === 'string') return message.id
  return undefined
}
