/**
 * The explorer's route table: every route it serves with its OpenAPI operation (parameters, answers,
 * problem bodies), keyed as `GET /` lists them (`METHOD /path`, uWS `:param` patterns). The document at
 * `GET /openapi.json` is generated from this table and the server registers its routes through it
 * (documented-app.ts), so a route cannot be served without its documentation, nor documented without
 * being served. `WS /stream` is the WebSocket upgrade: a GET operation whose messages are schemas under
 * `x-websocket`. Long on purpose: the whole API description in the order it is read.
 */
import { CSV_COLUMNS, MAX_SERIES_BUCKETS } from '../../query/index.js'
import { COMMON_ERRORS, CURSOR, EVENTS_PARAMETERS, EXPORT_PARAMETERS, json, operation, parameterless, parameterRef, ref, responseRef, SERIES_PARAMETERS, STATS_FILTERING, STATS_PARAMETERS, STREAM_PARAMETERS } from './openapi-parts.js'
import { BYTES32, FILTER_SHAPES } from './parse-query.js'

export const EXPLORER_ROUTES = {
  'GET /': parameterless(
    'API root',
    [
      'The service, the chain and contract it indexes, its indexed head and the endpoint list.',
      '',
      'One address, two audiences: a request whose `Accept` ranks `text/html` above `application/json` (a browser) gets the explorer\'s web page instead, with its assets under `/assets/`; every other request (`curl`, the SDK, `Accept: */*`, no `Accept`) gets this JSON. Both answers carry `Vary: Accept`.',
    ].join('\n'),
    { ...json(ref('Root')), 'text/html': { schema: { type: 'string', description: 'The web page, for browsers (see above).' } } },
  ),
  'GET /events': operation(
    'List settlements',
    'Keyset pages of settlements, newest first by default. Any combination of filters; `total` is the exact number of settlements matching the filters (not the page). Settlements that arrive while a client pages never shift or repeat entries.\n\nSeveral field filters (or a field filter and amount bounds) are answered by walking the smallest candidate set, at most `EVENTS_MAX_WALK` candidates for the total and as many for the page. Past it `total` counts the matches found so far, a lower bound, and the page says so with `totalRelation: "gte"`; a page whose matches lie beyond the walk holds fewer than `limit` settlements (none, even) and a `nextCursor` after the last candidate read: follow it as usual, no match is skipped or repeated.',
    Object.values(EVENTS_PARAMETERS).map((parameter) => parameterRef(`events.${String(parameter.name)}`)),
    {
      '200': { description: 'A page.', content: json(ref('EventPage')) },
      '400': responseRef('BadRequest'),
      '503': responseRef('Busy'),
    },
  ),
  'GET /events/export': {
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
  'GET /events/:txHash': operation(
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
  'GET /events/order/:orderReference': operation(
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
  'GET /events/stream': {
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
  'WS /stream': {
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
  'GET /stats': operation(
    'Statistics',
    [
      'Totals per token symbol, the last 24 hours (the 24 hour buckets ending with the current hour, so 23 to 24 hours), and the same figures per token address in `byToken` (two tokens with one symbol stay apart there).',
      '',
      'Without parameters, every settlement. With filters, the same figures for the matching settlements (`last24h`: those of them in the same 24 hour buckets). ' + STATS_FILTERING,
    ].join('\n'),
    Object.values(STATS_PARAMETERS),
    { '200': { description: 'Statistics', content: json(ref('Stats')) }, '400': responseRef('BadRequest'), '503': responseRef('Busy') },
  ),
  'GET /stats/series': operation(
    'Time series',
    [
      `The matching settlements per UTC hour or day: every bucket of [\`fromTimestamp\`, \`toTimestamp\`] in ascending order, empty ones included (0 and \`{}\`), at most ${MAX_SERIES_BUCKETS}. \`start\` is the bucket's first second; the first and last buckets count only the settlements inside the range, so the buckets add up to \`/stats\` with the same filters.`,
      '',
      STATS_FILTERING,
    ].join('\n'),
    Object.values(SERIES_PARAMETERS),
    { '200': { description: 'Time series', content: json(ref('Series')) }, '400': responseRef('BadRequest'), '503': responseRef('Busy') },
  ),
  'GET /health': parameterless('Liveness', '200 once the process serves.', json(ref('Health'))),
  'GET /ready': operation(
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
  'GET /metrics': parameterless('Prometheus metrics', 'Text exposition format 0.0.4, names prefixed `explorer_`, base units.', { 'text/plain': { schema: { type: 'string' } } }),
  'GET /openapi.json': parameterless(
    'This document',
    'The OpenAPI 3.1 description of this API.',
    json({
      type: 'object',
      required: ['openapi', 'info', 'paths', 'components'],
      properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
    }),
  ),
}

/** A route of the table, e.g. `GET /events/:txHash`. */
export type Endpoint = keyof typeof EXPLORER_ROUTES

/** Every route, as `GET /` lists them: the WebSocket last. */
export const ENDPOINTS = (Object.keys(EXPLORER_ROUTES) as Endpoint[]).sort((a, b) => Number(a.startsWith('WS ')) - Number(b.startsWith('WS ')))
