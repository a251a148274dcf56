/**
 * The one place that validates WebSocket client messages (SPEC §3.3). Filter values and cursors go
 * through the same checks as the REST query string, so both interfaces accept exactly the same input.
 */
import { FILTER_KEYS, type SettlementFilter } from '../../query/index.js'
import type { Position } from '../../store/index.js'
import { BaseError } from '../../../errors/index.js'
import { ProblemError } from '../../../platform/http/index.js'
import { parseCursor, parseFilter } from '../rest/parse-query.js'
import type { LiveError, LiveErrorCode } from '../../../wire/index.js'

export const MAX_ID_LENGTH = 128

export type ClientMessage =
  | { type: 'SUBSCRIBE'; id: string | undefined; filter: SettlementFilter; since: Position | undefined; sinceCursor: string | undefined }
  | { type: 'UNSUBSCRIBE'; id: string | undefined }

/** A refused message; `id` is echoed when the message carried a readable one. */
export interface RefusedMessage {
  error: LiveError
  id?: string
}

/** Bad input from a subscriber: answered with an ERROR message, never retryable as sent. */
class LiveRefusal extends BaseError {
  override name = 'LiveRefusal'

  constructor(
    readonly code: LiveErrorCode,
    message: string,
    cause?: unknown,
  ) {
    super(message, { details: { code }, cause })
  }
}

const SUBSCRIBE_KEYS = ['type', 'channel', 'filter', 'id', 'since']
const UNSUBSCRIBE_KEYS = ['type', 'id']

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export function parseClientMessage(message: ArrayBuffer, isBinary: boolean, maxBytes: number): ClientMessage | RefusedMessage {
  if (message.byteLength > maxBytes) {
    return refused('MESSAGE_TOO_LARGE', `a message may have at most ${maxBytes} bytes; this one has ${message.byteLength}`)
  }
  if (isBinary) return refused('INVALID_MESSAGE', 'messages are JSON text frames; binary frames are not accepted')
  let body: unknown
  try {
    body = JSON.parse(Buffer.from(message).toString('utf8'))
  } catch {
    return refused('INVALID_JSON', 'the message is not valid JSON')
  }
  if (!isObject(body)) return refused('INVALID_MESSAGE', 'a message must be a JSON object with a "type"')
  const id = typeof body.id === 'string' && body.id.length <= MAX_ID_LENGTH ? body.id : undefined
  try {
    return parseBody(body)
  } catch (error) {
    if (error instanceof LiveRefusal) return { ...refused(error.code, error.message), ...(id === undefined ? {} : { id }) }
    throw error
  }
}

function parseBody(body: Record<string, unknown>): ClientMessage {
  switch (body.type) {
    case 'SUBSCRIBE': {
      allowOnly(body, SUBSCRIBE_KEYS, 'SUBSCRIBE')
      if (body.channel !== 'settlements') {
        throw new LiveRefusal('UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(body.channel ?? null)}; the only channel is "settlements"`)
      }
      const since = parseSince(body.since)
      return { type: 'SUBSCRIBE', id: parseId(body.id), filter: parseFilterObject(body.filter), since, sinceCursor: since && (body.since as string) }
    }
    case 'UNSUBSCRIBE':
      allowOnly(body, UNSUBSCRIBE_KEYS, 'UNSUBSCRIBE')
      return { type: 'UNSUBSCRIBE', id: parseId(body.id) }
    case undefined:
      throw new LiveRefusal('INVALID_MESSAGE', 'a message must have a "type": "SUBSCRIBE" or "UNSUBSCRIBE"')
    default:
      throw new LiveRefusal('UNKNOWN_TYPE', `unknown message type ${JSON.stringify(body.type)}; expected "SUBSCRIBE" or "UNSUBSCRIBE"`)
  }
}

function allowOnly(body: Record<string, unknown>, keys: string[], type: string): void {
  const unknown = Object.keys(body).find((key) => !keys.includes(key))
  if (unknown !== undefined) throw new LiveRefusal('INVALID_MESSAGE', `unknown key "${unknown}" in ${type}; allowed: ${keys.join(', ')}`)
}

function parseId(id: unknown): string | undefined {
  if (id === undefined) return undefined
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw new LiveRefusal('INVALID_ID', `"id" must be a string of 1 to ${MAX_ID_LENGTH} characters`)
  }
  return id
}

function parseSince(since: unknown): Position | undefined {
  if (since === undefined) return undefined
  if (typeof since !== 'string') throw new LiveRefusal('INVALID_CURSOR', '"since" must be a cursor string')
  return viaQueryRules('INVALID_CURSOR', () => parseCursor(since, 'since'))
}

function parseFilterObject(filter: unknown): SettlementFilter {
  if (filter === undefined) return {}
  if (!isObject(filter)) throw new LiveRefusal('INVALID_FILTER', '"filter" must be an object')
  const params = new Map<string, string>()
  for (const [key, value] of Object.entries(filter)) {
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      throw new LiveRefusal('INVALID_FILTER', `unknown filter key "${key}"; allowed: ${FILTER_KEYS.join(', ')}`)
    }
    if (typeof value !== 'string') throw new LiveRefusal('INVALID_FILTER', `filter.${key} must be a string`)
    params.set(key, value)
  }
  return viaQueryRules('INVALID_FILTER', () => parseFilter(params))
}

/** Runs a REST query-string check and turns its problem into a refusal with `code`. */
function viaQueryRules<T>(code: LiveErrorCode, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof ProblemError) throw new LiveRefusal(code, error.message, error)
    throw error
  }
}

const refused = (code: LiveErrorCode, message: string): RefusedMessage => ({ error: { code, message } })
