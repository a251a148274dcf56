/**
 * The pieces the explorer's OpenAPI document is written with: references, the shapes of values in and
 * out, the query parameters of each route (typed by the validators' own lists — `EVENTS_PARAMS`,
 * `STREAM_PARAMS`… — so a parameter the server accepts cannot be left out; patterns and bounds come from
 * the validators too), and the operation builders the route table (explorer-routes.ts) uses.
 */
import { AMOUNT_BOUNDS, DEFAULT_LIMIT, EXPORT_FORMATS, FILTER_FIELDS, MAX_LIMIT, MAX_SERIES_BUCKETS } from '../../query/index.js'
import type { LiveErrorCode } from '../../../wire/index.js'
import type { STREAM_PARAMS } from '../live/register-sse.js'
import { openApi } from '../../../platform/http/index.js'
import { BYTES32, FILTER_SHAPES, RANGE_PARAMS, type EVENTS_PARAMS, type EXPORT_PARAMS, type SERIES_PARAMS, type STATS_PARAMS } from './parse-query.js'

// References, JSON bodies, amounts and counts are written as the merchant API's document writes them.
export type Schema = openApi.OpenApiSchema
export const { ref, responseRef, json, AMOUNT, COUNT } = openApi
export const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` })

export const lowercase = (pattern: RegExp) => pattern.source.replace('0-9a-fA-F', '0-9a-f')
export const ADDRESS_OUT = { type: 'string', pattern: lowercase(FILTER_SHAPES.token.pattern), description: 'lowercase, 0x + 40 hex digits' }
export const BYTES16_OUT = { type: 'string', pattern: lowercase(FILTER_SHAPES.orderReference.pattern), description: 'lowercase, 0x + 32 hex digits' }
export const BYTES32_OUT = { type: 'string', pattern: lowercase(BYTES32), description: 'lowercase, 0x + 64 hex digits' }
export const CURSOR = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: 'opaque (base64url); valid for REST pages, WebSocket `since` and SSE `Last-Event-ID`' }

export const FILTER_DESCRIPTIONS: Record<(typeof FILTER_FIELDS)[number], string> = {
  token: 'settlements in this token',
  recipient: 'settlements paid to this address',
  payer: 'settlements paid by this address',
  orderReference: 'settlements carrying this 16-byte order reference (the high half of the event’s `orderReference`)',
  acquirerId: 'settlements with this 16-byte acquirer id (the low half of the event’s `orderReference`)',
  address: 'settlements whose payer or recipient is this address (a self-payment counts once)',
}

export const filterParameter = (field: (typeof FILTER_FIELDS)[number]): Schema => ({
  name: field,
  in: 'query',
  required: false,
  description: `Only ${FILTER_DESCRIPTIONS[field]}; any case accepted. Filters combine with AND.`,
  schema: { type: 'string', pattern: FILTER_SHAPES[field].pattern.source },
})

export const FILTER_PARAMETERS = Object.fromEntries(FILTER_FIELDS.map((field) => [field, filterParameter(field)])) as Record<(typeof FILTER_FIELDS)[number], Schema>

export const AMOUNT_IN = { type: 'string', pattern: '^[0-9]+$', description: 'a decimal integer from 0 to 2^256 − 1 in the token’s smallest unit (no sign, point, exponent or hex)' }
export const AMOUNT_DESCRIPTIONS: Record<(typeof AMOUNT_BOUNDS)[number], string> = {
  minAmount: 'Only settlements whose `amount` is at least this (inclusive).',
  maxAmount: 'Only settlements whose `amount` is at most this (inclusive); not below `minAmount`.',
}
export const AMOUNT_PARAMETERS = Object.fromEntries(
  AMOUNT_BOUNDS.map((name) => [name, { name, in: 'query', required: false, description: AMOUNT_DESCRIPTIONS[name], schema: AMOUNT_IN }]),
) as unknown as Record<(typeof AMOUNT_BOUNDS)[number], Schema>

export const rangeParameter = (name: keyof typeof RANGE_PARAMS, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', pattern: '^[0-9]{1,16}$', description: `an integer from 0 to ${RANGE_PARAMS[name]}` },
})

export const EVENTS_PARAMETERS: Record<(typeof EVENTS_PARAMS)[number], Schema> = {
  limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Settlements per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
    schema: { type: 'string', pattern: '^[0-9]{1,16}$', description: `an integer from 1 to ${MAX_LIMIT}` },
  },
  cursor: { name: 'cursor', in: 'query', required: false, description: 'Continue after this position (a `nextCursor`, or any live cursor).', schema: CURSOR },
  order: { name: 'order', in: 'query', required: false, description: '`desc` (newest first, default) or `asc`.', schema: { type: 'string', enum: ['desc', 'asc'] } },
  ...FILTER_PARAMETERS,
  ...AMOUNT_PARAMETERS,
  fromBlock: rangeParameter('fromBlock', 'Lowest block number, inclusive.'),
  toBlock: rangeParameter('toBlock', 'Highest block number, inclusive; not below `fromBlock`.'),
  fromTimestamp: rangeParameter('fromTimestamp', 'Earliest block timestamp (Unix seconds), inclusive.'),
  toTimestamp: rangeParameter('toTimestamp', 'Latest block timestamp (Unix seconds), inclusive; not below `fromTimestamp`.'),
}

export const STREAM_PARAMETERS: Record<(typeof STREAM_PARAMS)[number], Schema> = {
  ...FILTER_PARAMETERS,
  ...AMOUNT_PARAMETERS,
  since: { name: 'since', in: 'query', required: false, description: 'Replay every matching settlement after this cursor, then continue live. `Last-Event-ID` wins over it.', schema: CURSOR },
}

export const EXPORT_PARAMETERS: Record<(typeof EXPORT_PARAMS)[number], Schema> = {
  format: { name: 'format', in: 'query', required: true, description: 'The file’s format.', schema: { type: 'string', enum: [...EXPORT_FORMATS] } },
  order: { ...EVENTS_PARAMETERS.order!, description: '`desc` (newest first, default) or `asc`.' },
  ...FILTER_PARAMETERS,
  ...AMOUNT_PARAMETERS,
  fromBlock: EVENTS_PARAMETERS.fromBlock!,
  toBlock: EVENTS_PARAMETERS.toBlock!,
  fromTimestamp: EVENTS_PARAMETERS.fromTimestamp!,
  toTimestamp: EVENTS_PARAMETERS.toTimestamp!,
}

export const STATS_PARAMETERS: Record<(typeof STATS_PARAMS)[number], Schema> = {
  token: FILTER_PARAMETERS.token,
  recipient: FILTER_PARAMETERS.recipient,
  payer: FILTER_PARAMETERS.payer,
  address: FILTER_PARAMETERS.address,
  acquirerId: FILTER_PARAMETERS.acquirerId,
  ...AMOUNT_PARAMETERS,
  fromBlock: EVENTS_PARAMETERS.fromBlock!,
  toBlock: EVENTS_PARAMETERS.toBlock!,
  fromTimestamp: EVENTS_PARAMETERS.fromTimestamp!,
  toTimestamp: EVENTS_PARAMETERS.toTimestamp!,
}

export const SERIES_PARAMETERS: Record<(typeof SERIES_PARAMS)[number], Schema> = {
  interval: { name: 'interval', in: 'query', required: true, description: 'Bucket length: a UTC hour or a UTC day.', schema: { type: 'string', enum: ['hour', 'day'] } },
  ...STATS_PARAMETERS,
  fromTimestamp: { ...EVENTS_PARAMETERS.fromTimestamp!, required: true },
  toTimestamp: { ...EVENTS_PARAMETERS.toTimestamp!, required: true, description: `Latest block timestamp (Unix seconds), inclusive; not below \`fromTimestamp\`, and the range holds at most ${MAX_SERIES_BUCKETS} buckets.` },
}

export const STATS_FILTERING = [
  'Filters combine with AND, as on `/events` (`orderReference` aside). For no field filter, a `recipient`, an `acquirerId` or an `address` (each with or without `token`), whole hours are read from totals kept per recipient, acquirer id and hour while indexing, and the hours a timestamp or block bound cuts through are summed settlement by settlement (an `address` adds what it paid to others). A `payer`, amount bounds, or two or more of `payer`, `recipient`, `address`, `acquirerId` are summed settlement by settlement from the most selective index;',
  'a request that would read more settlements that way than the server allows (`STATS_MAX_WALK`, default 250,000) is refused (400, `param` naming the amount bound or the field filter that made it a walk): narrow it by time or by one more field.',
].join(' ')

/** Every code an `ERROR` message or an SSE `error` event can carry (a Record, so that none is left out). */
export const LIVE_ERROR_CODES: Record<LiveErrorCode, string> = {
  INVALID_JSON: 'the message is not JSON',
  INVALID_MESSAGE: 'not an object with a known shape, a binary frame, or an unknown key',
  UNKNOWN_TYPE: 'a `type` other than SUBSCRIBE or UNSUBSCRIBE',
  UNKNOWN_CHANNEL: 'a channel other than `settlements`',
  INVALID_FILTER: 'an unknown filter key or a malformed value',
  INVALID_ID: 'an `id` that is not a string of 1 to 128 characters',
  INVALID_CURSOR: 'a `since` this explorer did not issue',
  MESSAGE_TOO_LARGE: 'a message over `WS_MAX_MESSAGE_BYTES`',
  TOO_MANY_SUBSCRIPTIONS: 'more than `WS_MAX_SUBSCRIPTIONS` on one connection',
  DUPLICATE_SUBSCRIPTION: 'the same id (or the same filter without an id) twice on one connection',
  UNKNOWN_SUBSCRIPTION: 'UNSUBSCRIBE with an id the connection does not hold',
  RATE_LIMIT_EXCEEDED: 'SUBSCRIBE past `WS_SUBSCRIBE_BURST` at once, then `WS_SUBSCRIBE_RATE` a second, on one connection',
  SLOW_CONSUMER: 'unsent data passed `LIVE_MAX_BUFFERED_BYTES`, or all live connections hold more than `LIVE_MAX_TOTAL_BUFFERED_BYTES` and this one held unsent data longest (SSE; the stream ends)',
}

export const problemResponse = (description: string, headers?: Schema) => ({
  description,
  ...(headers && { headers }),
  content: { 'application/problem+json': { schema: ref('Problem') } },
})

/** What every REST operation may answer besides its own outcomes (an operation's own 503 replaces the second). */
export const COMMON_ERRORS = { '414': responseRef('UriTooLong'), '503': responseRef('ShuttingDown') }

export const operation = (summary: string, description: string, parameters: Schema[], responses: Schema) => ({
  summary,
  description,
  ...(parameters.length > 0 && { parameters }),
  responses: { ...COMMON_ERRORS, ...responses },
})

/** A route that takes no parameter (any is a 400) and answers 200 with `content`. */
export const parameterless = (summary: string, description: string, content: Schema) =>
  operation(summary, description, [], { '200': { description: summary, content }, '400': responseRef('BadRequest') })
