/**
 * The explorer's API as an OpenAPI 3.1 document, served at `GET /openapi.json`: every REST endpoint with
 * its parameters, answers and problem bodies, the SSE stream, and the WebSocket `/stream` (which OpenAPI
 * cannot model: its upgrade is an operation, its messages are schemas under `x-websocket`).
 *
 * Parameter lists are typed by the validators' own lists (`EVENTS_PARAMS`, `STREAM_PARAMS`), so a
 * parameter the server accepts cannot be left out; patterns and bounds come from the validators too.
 * test/openapi/explorer.test.ts validates the document and checks real answers against its schemas.
 * It is one long literal on purpose: the whole API description in one place, in the order it is read.
 */
import { AMOUNT_BOUNDS, CSV_COLUMNS, DEFAULT_LIMIT, EXPORT_FORMATS, FILTER_FIELDS, MAX_LIMIT, MAX_SERIES_BUCKETS } from '../../query/index.js'
import type { LiveErrorCode } from '../live/messages.js'
import type { STREAM_PARAMS } from '../live/register-sse.js'
import { MAX_TARGET_BYTES, openApi } from '../../../platform/http/index.js'
import { problemSchema } from '../../../wire/index.js'
import { BYTES32, FILTER_SHAPES, RANGE_PARAMS, type EVENTS_PARAMS, type EXPORT_PARAMS, type SERIES_PARAMS, type STATS_PARAMS } from './parse-query.js'

type Schema = openApi.OpenApiSchema
const { AMOUNT, COUNT, json, ref, responseRef } = openApi
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` })

const lowercase = (pattern: RegExp) => pattern.source.replace('0-9a-fA-F', '0-9a-f')
const ADDRESS_OUT = { type: 'string', pattern: lowercase(FILTER_SHAPES.token.pattern), description: 'lowercase, 0x + 40 hex digits' }
const BYTES16_OUT = { type: 'string', pattern: lowercase(FILTER_SHAPES.orderReference.pattern), description: 'lowercase, 0x + 32 hex digits' }
const BYTES32_OUT = { type: 'string', pattern: lowercase(BYTES32), description: 'lowercase, 0x + 64 hex digits' }
const CURSOR = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: 'opaque (base64url); valid for REST pages, WebSocket `since` and SSE `Last-Event-ID`' }

const FILTER_DESCRIPTIONS: Record<(typeof FILTER_FIELDS)[number], string> = {
  token: 'settlements in this token',
  recipient: 'settlements paid to this address',
  payer: 'settlements paid by this address',
  orderReference: 'settlements carrying this 16-byte order reference (the high half of the event’s `orderReference`)',
  acquirerId: 'settlements with this 16-byte acquirer id (the low half of the event’s `orderReference`)',
  address: 'settlements whose payer or recipient is this address (a self-payment counts once)',
}

const filterParameter = (field: (typeof FILTER_FIELDS)[number]): Schema => ({
  name: field,
  in: 'query',
  required: false,
  description: `Only ${FILTER_DESCRIPTIONS[field]}; any case accepted. Filters combine with AND.`,
  schema: { type: 'string', pattern: FILTER_SHAPES[field].pattern.source },
})

const FILTER_PARAMETERS = Object.fromEntries(FILTER_FIELDS.map((field) => [field, filterParameter(field)])) as Record<(typeof FILTER_FIELDS)[number], Schema>

const AMOUNT_IN = { type: 'string', pattern: '^[0-9]+$', description: 'a decimal integer from 0 to 2^256 − 1 in the token’s smallest unit (no sign, point, exponent or hex)' }
const AMOUNT_DESCRIPTIONS: Record<(typeof AMOUNT_BOUNDS)[number], string> = {
  minAmount: 'Only settlements whose `amount` is at least this (inclusive).',
  maxAmount: 'Only settlements whose `amount` is at most this (inclusive); not below `minAmount`.',
}
const AMOUNT_PARAMETERS = Object.fromEntries(
  AMOUNT_BOUNDS.map((name) => [name, { name, in: 'query', required: false, description: AMOUNT_DESCRIPTIONS[name], schema: AMOUNT_IN }]),
) as unknown as Record<(typeof AMOUNT_BOUNDS)[number], Schema>

const rangeParameter = (name: keyof typeof RANGE_PARAMS, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', pattern: '^[0-9]{1,16}$', description: `an integer from 0 to ${RANGE_PARAMS[name]}` },
})

const EVENTS_PARAMETERS: Record<(typeof EVENTS_PARAMS)[number], Schema> = {
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

const STREAM_PARAMETERS: Record<(typeof STREAM_PARAMS)[number], Schema> = {
  ...FILTER_PARAMETERS,
  ...AMOUNT_PARAMETERS,
  since: { name: 'since', in: 'query', required: false, description: 'Replay every matching settlement after this cursor, then continue live. `Last-Event-ID` wins over it.', schema: CURSOR },
}

const EXPORT_PARAMETERS: Record<(typeof EXPORT_PARAMS)[number], Schema> = {
  format: { name: 'format', in: 'query', required: true, description: 'The file’s format.', schema: { type: 'string', enum: [...EXPORT_FORMATS] } },
  order: { ...EVENTS_PARAMETERS.order!, description: '`desc` (newest first, default) or `asc`.' },
  ...FILTER_PARAMETERS,
  ...AMOUNT_PARAMETERS,
  fromBlock: EVENTS_PARAMETERS.fromBlock!,
  toBlock: EVENTS_PARAMETERS.toBlock!,
  fromTimestamp: EVENTS_PARAMETERS.fromTimestamp!,
  toTimestamp: EVENTS_PARAMETERS.toTimestamp!,
}

const STATS_PARAMETERS: Record<(typeof STATS_PARAMS)[number], Schema> = {
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

const SERIES_PARAMETERS: Record<(typeof SERIES_PARAMS)[number], Schema> = {
  interval: { name: 'interval', in: 'query', required: true, description: 'Bucket length: a UTC hour or a UTC day.', schema: { type: 'string', enum: ['hour', 'day'] } },
  ...STATS_PARAMETERS,
  fromTimestamp: { ...EVENTS_PARAMETERS.fromTimestamp!, required: true },
  toTimestamp: { ...EVENTS_PARAMETERS.toTimestamp!, required: true, description: `Latest block timestamp (Unix seconds), inclusive; not below \`fromTimestamp\`, and the range holds at most ${MAX_SERIES_BUCKETS} buckets.` },
}

const STATS_FILTERING = [
  'Filters combine with AND, as on `/events` (`orderReference` aside). For no field filter, a `recipient`, an `acquirerId` or an `address` (each with or without `token`), whole hours are read from totals kept per recipient, acquirer id and hour while indexing, and the hours a timestamp or block bound cuts through are summed settlement by settlement (an `address` adds what it paid to others). A `payer`, amount bounds, or two or more of `payer`, `recipient`, `address`, `acquirerId` are summed settlement by settlement from the most selective index;',
  'a request that would read more settlements that way than the server allows (`STATS_MAX_WALK`, default 250,000) is refused (400, `param` naming the amount bound or the field filter that made it a walk): narrow it by time or by one more field.',
].join(' ')

/** Every code an `ERROR` message or an SSE `error` event can carry (a Record, so that none is left out). */
const LIVE_ERROR_CODES: Record<LiveErrorCode, string> = {
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

const problemResponse = (description: string, headers?: Schema) => ({
  description,
  ...(headers && { headers }),
  content: { 'application/problem+json': { schema: ref('Problem') } },
})

/** What every REST operation may answer besides its own outcomes (an operation's own 503 replaces the second). */
const COMMON_ERRORS = { '414': responseRef('UriTooLong'), '503': responseRef('ShuttingDown') }

const operation = (summary: string, description: string, parameters: Schema[], responses: Schema) => ({
  summary,
  description,
  ...(parameters.length > 0 && { parameters }),
  responses: { ...COMMON_ERRORS, ...responses },
})

/** A route that takes no parameter (any is a 400) and answers 200 with `content`. */
const parameterless = (summary: string, description: string, content: Schema) =>
  operation(summary, description, [], { '200': { description: summary, content }, '400': responseRef('BadRequest') })

export function explorerOpenApi(version: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Settlement explorer',
      version,
      description: [
        'A public, read-only index of one settlement contract’s `PermittedTransfer` events: REST pages, lookups and statistics, and live feeds over Server-Sent Events and WebSocket.',
        '',
        'Every answer carries `Access-Control-Allow-Origin: *`; `OPTIONS` on any path answers the CORS preflight (204). Only `GET` is served: any other method on any path answers **405** with `Allow: GET` (`#/components/responses/MethodNotAllowed`), and an unknown path **404** (`#/components/responses/NotFound`).',
        '',
        'Errors are `application/problem+json` (RFC 9457) with `param` naming the offending query parameter. Unknown and repeated query parameters are refused (400). All hex in answers is lowercase; hex in input is accepted in any case.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    paths: {
      '/': {
        get: parameterless(
          'API root',
          [
            'The service, the chain and contract it indexes, its indexed head and the endpoint list.',
            '',
            'One address, two audiences: a request whose `Accept` ranks `text/html` above `application/json` (a browser) gets the explorer\'s web page instead, with its assets under `/assets/`; every other request (`curl`, the SDK, `Accept: */*`, no `Accept`) gets this JSON. Both answers carry `Vary: Accept`.',
          ].join('\n'),
          { ...json(ref('Root')), 'text/html': { schema: { type: 'string', description: 'The web page, for browsers (see above).' } } },
        ),
      },
      '/events': {
        get: operation(
          'List settlements',
          'Keyset pages of settlements, newest first by default. Any combination of filters; `total` is the exact number of settlements matching the filters (not the page). Settlements that arrive while a client pages never shift or repeat entries.\n\nSeveral field filters (or a field filter and amount bounds) are answered by walking the smallest candidate set, at most `EVENTS_MAX_WALK` candidates for the total and as many for the page. Past it `total` counts the matches found so far, a lower bound, and the page says so with `totalRelation: "gte"`; a page whose matches lie beyond the walk holds fewer than `limit` settlements (none, even) and a `nextCursor` after the last candidate read: follow it as usual, no match is skipped or repeated.',
          Object.values(EVENTS_PARAMETERS).map((parameter) => parameterRef(`events.${String(parameter.name)}`)),
          {
            '200': { description: 'A page.', content: json(ref('EventPage')) },
            '400': responseRef('BadRequest'),
            '503': responseRef('Busy'),
          },
        ),
      },
      '/events/export': {
        get: {
          summary: 'Export settlements as a file',
          description: [
            'Every settlement matching the filters, in `order`, as one file: no `limit`, no cursor. The file holds every matching settlement up to the head indexed when the export starts, each once, even while blocks arrive (a reorganisation during the export shows in the blocks not yet written); it is streamed as the client reads it.',
            '',
            'Capped: at most `EXPORT_MAX_CONCURRENT` exports run at once (503) and `EXPORT_MAX_PER_ADDRESS` from one client address (429), each refusal with `Retry-After`; an export still running `EXPORT_MAX_SECONDS` after its start is cut off, its connection closed before the chunked body ends, so a client sees an incomplete transfer, never a file that looks complete.',
            '',
            '- `format=csv`: RFC 4180 (CRLF line ends), one header row, then a row per settlement. The first columns are the settlement fields by name (`' + CSV_COLUMNS.slice(0, 14).join('`, `') + '`), written exactly as in `/events`; then `timeUtc` (ISO 8601, UTC), `amountDecimal` and `feeDecimal` (in token units, every decimal written). A `tokenSymbol` starting with `=`, `+`, `-`, `@`, a tab, a CR or an apostrophe (a formula in a spreadsheet) is written with an apostrophe in front: drop one leading apostrophe to compare with `/events`.',
            '- `format=ndjson`: one `Settlement` JSON object per line.',
            '',
            '`Content-Disposition: attachment` names the filters and the indexed head. Bad parameters (an unknown `format` included) are a 400 problem before any byte of a file.',
          ].join('\n'),
          parameters: Object.values(EXPORT_PARAMETERS),
          responses: {
            ...COMMON_ERRORS,
            '200': {
              description: 'The file.',
              headers: { 'Content-Disposition': { description: '`attachment; filename="settlements_<filters>_head-<block>.<format>"`', schema: { type: 'string' } } },
              content: {
                'text/csv': { schema: { type: 'string', description: 'RFC 4180, header row first' } },
                'application/x-ndjson': { schema: { type: 'string', description: 'one `#/components/schemas/Settlement` per line' } },
              },
            },
            '400': responseRef('BadRequest'),
            '429': responseRef('TooManyExportsFromAddress'),
            '503': responseRef('ExportsFull'),
          },
        },
      },
      '/events/{txHash}': {
        get: operation(
          'Settlement of a transaction',
          'The settlement in that transaction; the one with the lowest log index when it holds several.',
          [{ name: 'txHash', in: 'path', required: true, description: 'A transaction hash, any case.', schema: { type: 'string', pattern: BYTES32.source } }],
          {
            '200': { description: 'The settlement.', content: json(ref('Settlement')) },
            '400': responseRef('BadRequest'),
            '404': responseRef('NotFound'),
            '503': responseRef('Busy'),
          },
        ),
      },
      '/events/order/{orderReference}': {
        get: operation(
          'Settlement of an order reference',
          'The earliest settlement carrying that 16-byte order reference.',
          [{ name: 'orderReference', in: 'path', required: true, description: 'A 16-byte order reference, any case.', schema: { type: 'string', pattern: FILTER_SHAPES.orderReference.pattern.source } }],
          {
            '200': { description: 'The settlement.', content: json(ref('Settlement')) },
            '400': responseRef('BadRequest'),
            '404': responseRef('NotFound'),
            '503': responseRef('Busy'),
          },
        ),
      },
      '/events/stream': {
        get: {
          summary: 'Live settlements (Server-Sent Events)',
          description: [
            'Every matching confirmed settlement as it is indexed, in chain order. Frames:',
            '',
            '- `event: settlement`, `id: <cursor>`, `data: <Settlement JSON>` (`#/components/schemas/Settlement`);',
            '- `event: removed`, `id: <cursor before it>`, `data: <Settlement JSON>` — a reorg took an announced settlement back;',
            '- `event: error`, `data: <LiveError JSON>` (`#/components/schemas/LiveError`, code `SLOW_CONSUMER`), then the stream ends: the client was too slow (or, while the server holds more unsent data than its budget, among the slowest longest) and reconnects with `Last-Event-ID`;',
            '- comment lines (`: connected`, `: keepalive` every 15 s).',
            '',
            'A `Last-Event-ID` header (sent by a reconnecting EventSource) or `?since=` replays everything after that cursor, then continues live, with no gap and no duplicate.',
          ].join('\n'),
          parameters: [
            ...Object.values(STREAM_PARAMETERS),
            { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this cursor (wins over `since`).', schema: CURSOR },
          ],
          responses: {
            '200': { description: 'An endless event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            '400': responseRef('BadRequest'),
            '429': responseRef('TooManyFromAddress'),
            '503': responseRef('Unavailable'),
          },
        },
      },
      '/stream': {
        get: {
          summary: 'Live settlements (WebSocket)',
          description: [
            'A WebSocket upgrade. Messages are JSON text frames (see `x-websocket`).',
            '',
            'Client → server: `SUBSCRIBE` (channel `settlements`, an optional `filter` whose keys combine with AND, an optional `id` echoed on its messages, an optional `since` cursor to replay from) and `UNSUBSCRIBE` (one subscription by `id`, or all).',
            '',
            'Server → client: `SUBSCRIBED` / `UNSUBSCRIBED` acknowledgements; `SETTLEMENT` for each matching confirmed settlement in chain order (replayed ones first), with the cursor to resume after it; `REMOVED` when a reorg took an announced settlement back (its cursor is the position before it); `ERROR` for a refused message — the connection stays open.',
            '',
            'Closes: 4008 `slow consumer` (unsent messages passed the per-connection bound, or the server holds more unsent data than its budget and this connection held some longest; resume with `since`), 1001 `server shutting down`. The server pings idle connections.',
          ].join('\n'),
          parameters: [
            { name: 'Upgrade', in: 'header', required: true, schema: { const: 'websocket' } },
            { name: 'Sec-WebSocket-Key', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'Sec-WebSocket-Version', in: 'header', required: true, schema: { const: '13' } },
          ],
          responses: {
            '101': { description: 'Switching Protocols: the WebSocket is open.' },
            '429': responseRef('TooManyFromAddress'),
            '503': responseRef('Unavailable'),
          },
          'x-websocket': {
            clientMessages: { oneOf: [ref('SubscribeMessage'), ref('UnsubscribeMessage')] },
            serverMessages: {
              oneOf: [ref('SubscribedMessage'), ref('UnsubscribedMessage'), ref('SettlementMessage'), ref('RemovedMessage'), ref('ErrorMessage')],
            },
            closeCodes: { '1001': 'server shutting down', '4008': 'slow consumer' },
          },
        },
      },
      '/stats': {
        get: operation(
          'Statistics',
          [
            'Totals per token symbol, the last 24 hours (the 24 hour buckets ending with the current hour, so 23 to 24 hours), and the same figures per token address in `byToken` (two tokens with one symbol stay apart there).',
            '',
            'Without parameters, every settlement. With filters, the same figures for the matching settlements (`last24h`: those of them in the same 24 hour buckets). ' + STATS_FILTERING,
          ].join('\n'),
          Object.values(STATS_PARAMETERS),
          { '200': { description: 'Statistics', content: json(ref('Stats')) }, '400': responseRef('BadRequest'), '503': responseRef('Busy') },
        ),
      },
      '/stats/series': {
        get: operation(
          'Time series',
          [
            `The matching settlements per UTC hour or day: every bucket of [\`fromTimestamp\`, \`toTimestamp\`] in ascending order, empty ones included (0 and \`{}\`), at most ${MAX_SERIES_BUCKETS}. \`start\` is the bucket's first second; the first and last buckets count only the settlements inside the range, so the buckets add up to \`/stats\` with the same filters.`,
            '',
            STATS_FILTERING,
          ].join('\n'),
          Object.values(SERIES_PARAMETERS),
          { '200': { description: 'Time series', content: json(ref('Series')) }, '400': responseRef('BadRequest'), '503': responseRef('Busy') },
        ),
      },
      '/health': {
        get: parameterless('Liveness', '200 once the process serves.', json(ref('Health'))),
      },
      '/ready': {
        get: operation(
          'Readiness',
          '200 when the indexer is at most `maxLag` confirmed blocks behind the chain and the node answers; 503 otherwise, with the lag and the last node error. A load balancer routes to ready replicas only.',
          [],
          {
            '200': { description: 'Caught up.', content: json(ref('Ready')) },
            '400': responseRef('BadRequest'),
            '503': {
              description: 'Behind the chain or without a node (`Ready`, status `syncing`), or shutting down (a problem).',
              content: { ...json(ref('Ready')), 'application/problem+json': { schema: ref('Problem') } },
            },
          },
        ),
      },
      '/metrics': {
        get: parameterless('Prometheus metrics', 'Text exposition format 0.0.4, names prefixed `explorer_`, base units.', { 'text/plain': { schema: { type: 'string' } } }),
      },
      '/openapi.json': {
        get: parameterless(
          'This document',
          'The OpenAPI 3.1 description of this API.',
          json({
            type: 'object',
            required: ['openapi', 'info', 'paths', 'components'],
            properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
          }),
        ),
      },
    },
    components: {
      parameters: Object.fromEntries(Object.values(EVENTS_PARAMETERS).map((parameter) => [`events.${String(parameter.name)}`, parameter])),
      responses: {
        BadRequest: problemResponse('A malformed or out-of-range parameter, an unknown or repeated query parameter, or a cursor this explorer did not issue; `param` names it.'),
        NotFound: problemResponse('No such settlement, or no such route.'),
        MethodNotAllowed: problemResponse('A method other than GET (and OPTIONS), on any path.', {
          Allow: { description: 'Always `GET`.', schema: { const: 'GET' } },
        }),
        UriTooLong: problemResponse(`The request target (path and query) is over ${MAX_TARGET_BYTES} bytes.`),
        ShuttingDown: problemResponse('The explorer is stopping; the connection is closed.'),
        Unavailable: problemResponse('Shutting down, or the live connection limit is reached (`Retry-After`).', {
          'Retry-After': { description: 'Seconds, when the connection limit is reached.', schema: { type: 'string' } },
        }),
        Busy: problemResponse('The explorer is stopping (the connection is closed), or its query pool holds `QUERY_MAX_QUEUE` waiting queries already (`Retry-After`).', {
          'Retry-After': { description: 'Seconds, when the pool is full.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
        }),
        ExportsFull: problemResponse('The explorer is stopping (the connection is closed), or `EXPORT_MAX_CONCURRENT` exports are running (`Retry-After`).', {
          'Retry-After': { description: 'Seconds, when the exports are at their cap.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
        }),
        TooManyExportsFromAddress: problemResponse('The client’s address runs `EXPORT_MAX_PER_ADDRESS` exports already.', {
          'Retry-After': { description: 'Seconds.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
        }),
        TooManyFromAddress: problemResponse('The client’s address holds `WS_MAX_CONNECTIONS_PER_IP` live connections (WebSocket and SSE together) already.', {
          'Retry-After': { description: 'Seconds.', schema: { const: '5' } },
        }),
      },
      schemas: {
        Settlement: {
          type: 'object',
          description: 'One `PermittedTransfer` event.',
          additionalProperties: false,
          required: ['txHash', 'blockNumber', 'logIndex', 'timestamp', 'token', 'tokenSymbol', 'tokenDecimals', 'payer', 'recipient', 'amount', 'fee', 'orderReference', 'acquirerId', 'domainSeparator'],
          properties: {
            txHash: BYTES32_OUT,
            blockNumber: COUNT,
            logIndex: COUNT,
            timestamp: { ...COUNT, description: 'the block’s, Unix seconds' },
            token: ADDRESS_OUT,
            tokenSymbol: { type: 'string' },
            tokenDecimals: COUNT,
            payer: ADDRESS_OUT,
            recipient: ADDRESS_OUT,
            amount: { ...AMOUNT, description: 'the principal the recipient received (the event’s `value`)' },
            fee: AMOUNT,
            orderReference: { ...BYTES16_OUT, description: 'the high 16 bytes of the event’s `orderReference`' },
            acquirerId: { ...BYTES16_OUT, description: 'the low 16 bytes of the event’s `orderReference`; zero without an acquirer' },
            domainSeparator: BYTES32_OUT,
          },
        },
        EventPage: {
          type: 'object',
          additionalProperties: false,
          required: ['events', 'nextCursor', 'total'],
          properties: {
            events: { type: 'array', items: ref('Settlement'), maxItems: MAX_LIMIT },
            nextCursor: { oneOf: [CURSOR, { type: 'null' }], description: 'the next page’s `cursor`; null on the last page' },
            total: { ...COUNT, description: 'settlements matching the filters, all pages together; a lower bound when `totalRelation` is `gte`' },
            totalRelation: { const: 'gte', description: 'present only when `total` is a lower bound: a walk of several filters stopped at `EVENTS_MAX_WALK` candidates' },
          },
        },
        AmountsBySymbol: { type: 'object', additionalProperties: AMOUNT, description: 'keyed by token symbol' },
        TokenStats: {
          type: 'object',
          additionalProperties: false,
          required: ['symbol', 'decimals', 'settlements', 'volume', 'fees', 'last24h'],
          properties: {
            symbol: { type: 'string' },
            decimals: COUNT,
            settlements: COUNT,
            volume: AMOUNT,
            fees: AMOUNT,
            last24h: { type: 'object', additionalProperties: false, required: ['settlements', 'volume'], properties: { settlements: COUNT, volume: AMOUNT } },
          },
        },
        Series: {
          type: 'object',
          additionalProperties: false,
          required: ['interval', 'buckets'],
          properties: {
            interval: { type: 'string', enum: ['hour', 'day'] },
            buckets: {
              type: 'array',
              maxItems: MAX_SERIES_BUCKETS,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['start', 'settlements', 'volume', 'fees'],
                properties: {
                  start: { ...COUNT, description: 'Unix seconds, a multiple of 3600 (hour) or 86400 (day)' },
                  settlements: COUNT,
                  volume: ref('AmountsBySymbol'),
                  fees: ref('AmountsBySymbol'),
                },
              },
            },
          },
        },
        Stats: {
          type: 'object',
          additionalProperties: false,
          required: ['totalSettlements', 'totalVolume', 'totalFees', 'last24h', 'byToken'],
          properties: {
            totalSettlements: COUNT,
            totalVolume: ref('AmountsBySymbol'),
            totalFees: ref('AmountsBySymbol'),
            last24h: {
              type: 'object',
              additionalProperties: false,
              required: ['settlements', 'volume'],
              properties: { settlements: COUNT, volume: ref('AmountsBySymbol') },
            },
            byToken: { type: 'object', propertyNames: ADDRESS_OUT, additionalProperties: ref('TokenStats'), description: 'keyed by token address' },
          },
        },
        Root: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'version', 'chainId', 'contract', 'confirmations', 'indexedHead', 'endpoints', 'eventsParams'],
          properties: {
            name: { const: 'settlement-explorer' },
            version: { type: 'string' },
            chainId: { type: 'integer', minimum: 1 },
            contract: ADDRESS_OUT,
            confirmations: { ...COUNT, description: 'blocks on top of a block before it is indexed' },
            indexedHead: {
              oneOf: [
                { type: 'object', additionalProperties: false, required: ['blockNumber', 'blockHash'], properties: { blockNumber: COUNT, blockHash: BYTES32_OUT } },
                { type: 'null' },
              ],
            },
            endpoints: { type: 'array', items: { type: 'string' } },
            eventsParams: { type: 'array', items: { type: 'string' }, description: 'the query parameters of `GET /events`' },
          },
        },
        Health: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { const: 'ok' } } },
        Ready: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'indexedBlock', 'maxLag'],
          properties: {
            status: { enum: ['ready', 'syncing'] },
            chainHead: { ...COUNT, description: 'the node’s latest block; absent until the node first answers' },
            indexedBlock: { type: 'integer', minimum: -1, description: 'the last indexed block (`START_BLOCK` − 1 before the first)' },
            lag: { ...COUNT, description: 'confirmed blocks not yet indexed; absent until the node first answers' },
            lastError: { type: 'string', description: 'the last indexing error, while it lasts' },
            maxLag: { ...COUNT, description: '`READY_MAX_LAG`' },
          },
        },
        Problem: problemSchema,
        SettlementFilter: {
          type: 'object',
          description: 'Keys combine with AND; no key = every settlement.',
          additionalProperties: false,
          properties: {
            ...Object.fromEntries(FILTER_FIELDS.map((field) => [field, { type: 'string', pattern: FILTER_SHAPES[field].pattern.source, description: FILTER_DESCRIPTIONS[field] }])),
            ...Object.fromEntries(AMOUNT_BOUNDS.map((name) => [name, { ...AMOUNT_IN, description: AMOUNT_DESCRIPTIONS[name] }])),
          },
        },
        SubscribeMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'channel'],
          properties: {
            type: { const: 'SUBSCRIBE' },
            channel: { const: 'settlements' },
            filter: ref('SettlementFilter'),
            id: { type: 'string', minLength: 1, maxLength: 128, description: 'echoed as `subscription` on this subscription’s messages' },
            since: { ...CURSOR, description: 'replay every matching settlement after this cursor, then continue live' },
          },
        },
        UnsubscribeMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type'],
          properties: { type: { const: 'UNSUBSCRIBE' }, id: { type: 'string', minLength: 1, maxLength: 128, description: 'absent: every subscription of the connection' } },
        },
        SubscribedMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'channel', 'filter', 'cursor'],
          properties: {
            type: { const: 'SUBSCRIBED' },
            channel: { const: 'settlements' },
            id: { type: 'string' },
            filter: ref('SettlementFilter'),
            since: CURSOR,
            cursor: { ...CURSOR, description: 'where the subscription starts: resuming later with `since` = this misses and repeats nothing' },
          },
        },
        UnsubscribedMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'ids'],
          properties: { type: { const: 'UNSUBSCRIBED' }, ids: { type: 'array', items: { type: ['string', 'null'] }, description: 'the ids dropped (null for one without an id)' } },
        },
        SettlementMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'data', 'cursor'],
          properties: { type: { const: 'SETTLEMENT' }, data: ref('Settlement'), cursor: CURSOR, subscription: { type: 'string', description: 'the `id` given at SUBSCRIBE' } },
        },
        RemovedMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'data', 'cursor'],
          properties: { type: { const: 'REMOVED' }, data: ref('Settlement'), cursor: { ...CURSOR, description: 'the position before the removed settlement' }, subscription: { type: 'string' } },
        },
        ErrorMessage: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'error'],
          properties: { type: { const: 'ERROR' }, error: ref('LiveError'), id: { type: 'string', description: 'the refused message’s `id`, when it had a readable one' } },
        },
        LiveError: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: { enum: Object.keys(LIVE_ERROR_CODES), description: Object.entries(LIVE_ERROR_CODES).map(([code, meaning]) => `\`${code}\`: ${meaning}`).join('; ') },
            message: { type: 'string' },
          },
        },
      },
    },
  }
}
