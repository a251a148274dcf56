/**
 * The merchant API's inputs as JSON Schema, checked by fastify at the edge before any handler runs:
 * no coercion, no defaults, and an unknown field is an error rather than dropped. `meaning` is what a
 * refusal's detail says a field must be.
 */
import { chargeStatuses, refundStatuses } from '../../db/index.js'

const ADDRESS = '^0x[0-9a-fA-F]{40}$'
const DATE_TIME = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})'
const DATE_OR_TIME = { type: 'string', pattern: `^\\d{4}-\\d{2}-\\d{2}$|^${DATE_TIME}$` }

const fields = {
  amount: { schema: { type: 'string', pattern: '^[1-9][0-9]{0,77}$' }, meaning: "a positive integer in the token's smallest unit, as a decimal string (no sign, point or leading zeros)" },
  token: { schema: { type: 'string', pattern: ADDRESS }, meaning: 'a token address (0x + 40 hex)' },
  beneficiary: { schema: { type: 'string', pattern: ADDRESS }, meaning: 'an address (0x + 40 hex)' },
  currency: { schema: { type: 'string', minLength: 1, maxLength: 32 }, meaning: "the token's symbol" },
  orderId: { schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }, meaning: '1 to 128 characters, no control characters' },
  status: { schema: { type: 'string', enum: chargeStatuses }, meaning: `one of ${chargeStatuses.join(', ')}` },
  refundStatus: { schema: { type: 'string', enum: refundStatuses }, meaning: `one of ${refundStatuses.join(', ')}` },
  chargeId: { schema: { type: 'string', pattern: '^ch_[0-9a-f]{24}$' }, meaning: 'a charge id (ch_ + 24 hex)' },
  cursor: { schema: { type: 'string', minLength: 1, maxLength: 200 }, meaning: 'a nextCursor from a previous page' },
  limit: { schema: { type: 'string', pattern: '^(100|[1-9][0-9]?)$' }, meaning: 'an integer 1..100' },
  id: { schema: { type: 'string', pattern: '^ch_[0-9a-f]{24}$' }, meaning: 'a charge id (ch_ + 24 hex)' },
  from: { schema: DATE_OR_TIME, meaning: 'a date (YYYY-MM-DD, UTC midnight) or an RFC 3339 date-time with its offset; inclusive' },
  to: { schema: DATE_OR_TIME, meaning: 'a date (YYYY-MM-DD, UTC midnight) or an RFC 3339 date-time with its offset; exclusive' },
  paymentLinkId: { schema: { type: 'string', pattern: '^pl_[0-9a-f]{24}$' }, meaning: 'a payment link id (pl_ + 24 hex)' },
  linkId: { schema: { type: 'string', pattern: '^pl_[0-9a-f]{24}$' }, meaning: 'a payment link id (pl_ + 24 hex)' },
  description: { schema: { type: 'string', minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }, meaning: '1 to 500 characters, no control characters' },
  maxUses: { schema: { type: 'integer', minimum: 1, maximum: 1_000_000 }, meaning: 'an integer 1..1000000 (a JSON number)' },
  expiresAt: { schema: { type: 'string', pattern: `^${DATE_TIME}$` }, meaning: 'an RFC 3339 date-time with its offset, in the future' },
  expiresInSeconds: { schema: { type: 'integer', minimum: 60, maximum: 86_400 }, meaning: "an integer number of seconds (a JSON number), 60 up to the engine's CHARGE_TTL_SECONDS" },
  reason: { schema: { type: 'string', minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }, meaning: '1 to 500 characters, no control characters' },
  refundId: { schema: { type: 'string', pattern: '^re_[0-9a-f]{24}$' }, meaning: 'a refund id (re_ + 24 hex)' },
  webhookUrl: { schema: { type: 'string', minLength: 1, maxLength: 2048 }, meaning: 'an http(s) URL without credentials, at most 2048 characters' },
  overlapHours: { schema: { type: 'integer', minimum: 0, maximum: 168 }, meaning: 'an integer 0..168 (a JSON number): hours the current secrets keep signing' },
  'idempotency-key': { schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\u0021-\\u007e]+$' }, meaning: '1 to 255 visible ASCII characters' },
} as const

type Field = keyof typeof fields

/** What `param` of a field must be, for the problem detail. */
export const meaningOf = (param: string): string | undefined => (fields as Record<string, { meaning: string }>)[param]?.meaning

function object<const names extends Field>(required: names[], optional: Field[] = []) {
  return {
    type: 'object',
    additionalProperties: false,
    required,
    properties: Object.fromEntries([...required, ...optional].map((name) => [name, fields[name].schema])),
  }
}

export const createChargeSchema = {
  body: object(['amount', 'token', 'beneficiary', 'currency', 'orderId'], ['expiresInSeconds']),
  headers: { type: 'object', properties: { 'idempotency-key': fields['idempotency-key'].schema } },
}

export const chargeIdSchema = { params: object(['id']) }

/** The filters of the charge listing, also those of the CSV reports. */
const chargeFilters: Field[] = ['status', 'from', 'to', 'beneficiary', 'orderId', 'paymentLinkId']

export const listChargesSchema = { querystring: object([], [...chargeFilters, 'cursor', 'limit']) }

/** Every matching row, streamed: no pages. */
export const chargeReportSchema = { querystring: object([], chargeFilters) }

/** The refunds' filters (listing and report): the refund's status and creation time, the charge's beneficiary (who pays the refund), id and order id. */
const refundFilters: Field[] = ['refundStatus', 'from', 'to', 'beneficiary', 'chargeId', 'orderId']

export const listRefundsSchema = { querystring: object([], [...refundFilters, 'cursor', 'limit']) }

export const refundReportSchema = { querystring: object([], refundFilters) }

export const createPaymentLinkSchema = { body: object(['amount', 'token', 'beneficiary', 'description'], ['maxUses', 'expiresAt']) }

export const paymentLinkIdSchema = { params: object(['linkId']) }

export const listPaymentLinksSchema = { querystring: object([], ['cursor', 'limit']) }

export const createRefundSchema = { params: object(['id']), body: object(['amount'], ['reason']), headers: createChargeSchema.headers }

export const refundIdSchema = { params: object(['refundId']) }

export const changeWebhookEndpointSchema = { body: object(['webhookUrl']) }

/** No body stands for `{}` (the route fills it in before validation). */
export const rotateWebhookSecretSchema = { body: object([], ['overlapHours']) }
