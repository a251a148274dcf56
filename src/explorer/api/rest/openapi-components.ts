/**
 * The `components` of the explorer's OpenAPI document: the `/events` parameters by reference, the
 * problem answers every route shares, and the schemas of the answers and of the WebSocket messages
 * (which OpenAPI cannot model as operations; the `/stream` route names them under `x-websocket`).
 */
import { AMOUNT_BOUNDS, FILTER_FIELDS, MAX_LIMIT, MAX_SERIES_BUCKETS } from '../../query/index.js'
import { MAX_TARGET_BYTES } from '../../../platform/http/index.js'
import { problemSchema } from '../../../wire/index.js'
import { ADDRESS_OUT, AMOUNT, AMOUNT_DESCRIPTIONS, AMOUNT_IN, BYTES16_OUT, BYTES32_OUT, COUNT, CURSOR, EVENTS_PARAMETERS, FILTER_DESCRIPTIONS, LIVE_ERROR_CODES, problemResponse, ref } from './openapi-parts.js'
import { FILTER_SHAPES } from './parse-query.js'

export const explorerComponents = {
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
}
