/**
 * The text of every server → client message of the live feeds (SPEC §3.1 `/events/stream`, §3.3),
 * written as strings: a settlement's JSON is rendered once and spliced into each message.
 *
 * `cursor` in a message is always where a resume should start after: the settlement itself for
 * SETTLEMENT, the position just before the removed settlement for REMOVED.
 */
import type { SettlementFilter } from '../../query/index.js'

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

const subscriptionField = (id: string | undefined) => (id === undefined ? '' : `,"subscription":${JSON.stringify(id)}`)

export function eventMessage(kind: EventKind, json: string, cursor: string, id: string | undefined): string {
  return `{"type":"${kind}","data":${json},"cursor":"${cursor}"${subscriptionField(id)}}`
}

export function sseFrame(kind: EventKind, json: string, cursor: string): string {
  return `event: ${kind === 'SETTLEMENT' ? 'settlement' : 'removed'}\nid: ${cursor}\ndata: ${json}\n\n`
}

export const errorMessage = (error: LiveError, id?: string) => JSON.stringify({ type: 'ERROR', error, ...(id === undefined ? {} : { id }) })

export const sseErrorFrame = (error: LiveError) => `event: error\ndata: ${JSON.stringify(error)}\n\n`

/** `cursor` is where the subscription starts: resuming later with `since: cursor` misses and repeats nothing. */
export function subscribedMessage(id: string | undefined, filter: SettlementFilter, since: string | undefined, cursor: string): string {
  return JSON.stringify({ type: 'SUBSCRIBED', channel: 'settlements', id, filter, since, cursor })
}

export const unsubscribedMessage = (ids: (string | null)[]) => JSON.stringify({ type: 'UNSUBSCRIBED', ids })
