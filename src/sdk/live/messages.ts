/**
 * The `/stream` WebSocket protocol of SPEC §3.3 as the client sees it: what it sends, and a reader that
 * turns a text frame into one of the server's messages (or `undefined` for a frame it cannot use).
 */
import type { Settlement, SettlementFilter } from '../types.js'

export interface SubscribeMessage {
  type: 'SUBSCRIBE'
  channel: 'settlements'
  id: string
  filter?: SettlementFilter
  since?: string
}

export interface UnsubscribeMessage {
  type: 'UNSUBSCRIBE'
  id: string
}

export type ServerMessage =
  | { type: 'SETTLEMENT'; data: Settlement; cursor: string; subscription?: string }
  /** `cursor` of a REMOVED is the position just before the removed settlement: where a resume must restart. */
  | { type: 'REMOVED'; data: Settlement; cursor?: string; subscription?: string }
  | { type: 'SUBSCRIBED'; id?: string; subscription?: string; cursor?: string }
  | { type: 'UNSUBSCRIBED'; id?: string; subscription?: string }
  | { type: 'ERROR'; error: { code: string; message: string }; id?: string; subscription?: string }

const TYPES = new Set(['SETTLEMENT', 'REMOVED', 'SUBSCRIBED', 'UNSUBSCRIBED', 'ERROR'])

export function readServerMessage(frame: unknown): ServerMessage | undefined {
  if (typeof frame !== 'string') return undefined
  let message: unknown
  try {
    message = JSON.parse(frame)
  } catch {
    return undefined
  }
  if (typeof message !== 'object' || message === null) return undefined
  const { type } = message as { type?: unknown }
  if (typeof type !== 'string' || !TYPES.has(type)) return undefined
  const m = message as ServerMessage
  if ((m.type === 'SETTLEMENT' || m.type === 'REMOVED') && (typeof m.data !== 'object' || m.data === null)) return undefined
  if (m.type === 'SETTLEMENT' && typeof m.cursor !== 'string') return undefined
  if (m.type === 'ERROR' && (typeof m.error !== 'object' || m.error === null)) return undefined
  return m
}

/** The subscription a message is about: servers echo it as `subscription` on data and as `id` on acknowledgements. */
export function subscriptionOf(message: ServerMessage): string | undefined {
  if ('subscription' in message && typeof message.subscription === 'string') return message.subscription
  if ('id' in message && typeof message.id === 'string') return message.id
  return undefined
}
