/**
 * The parts of the merchant API's OpenAPI document that its sections share (`openapi.ts` composes the
 * charge, refund, payment-link and webhook-endpoint sections): address and hash shapes, parameters
 * described by name, problem answers, the merchant operation, and what every payable (a charge, a
 * refund) answers alike — its page token, its settlement, its cancellation. The sections import these
 * and nothing from each other or from `openapi.ts`, so the document's modules form no cycle.
 */
import { openApi } from '../../../platform/http/index.js'

const { json, nullable, ref, responseRef, AMOUNT, COUNT, TIME } = openApi
type Schema = openApi.OpenApiSchema

export interface ObjectSchema {
  properties: Record<string, object>
  required?: readonly string[]
}

export const ADDRESS = { type: 'string', pattern: '^0x[0-9a-f]{40}$', description: 'lowercase' }
export const BYTES16 = { type: 'string', pattern: '^0x[0-9a-f]{32}$' }
export const TX_HASH = { type: 'string', pattern: '^0x[0-9a-f]{64}$' }
export const CHARGE_ID = { type: 'string', pattern: '^ch_[0-9a-f]{24}$' }

/** The query parameters of the charge listing and the reports, described. */
const FILTER_DESCRIPTIONS: Record<string, string> = {
  from: 'only charges created at or after this time (a date is UTC midnight)',
  to: 'only charges created before this time (a date is UTC midnight)',
  beneficiary: 'only charges to this address (any case)',
  orderId: 'only the charge with this order id',
  paymentLinkId: 'only the charges made from this payment link',
  linkId: 'the payment link’s id',
  refundStatus: 'only refunds in this status',
}

/** The refunds listing's and report's parameters say what they filter on a refund. */
const REFUND_FILTERS: Record<string, string> = {
  from: 'only refunds created at or after this time (a date is UTC midnight)',
  to: 'only refunds created before this time (a date is UTC midnight)',
  beneficiary: 'only refunds of charges to this address, which pays them (any case)',
  chargeId: 'only the refunds of this charge',
  orderId: 'only the refunds of the charge with this order id',
}

const DESCRIPTIONS: Record<string, string> = {
  status: 'only charges (deliveries) in this status',
  cursor: 'the `nextCursor` of the previous page',
  limit: 'items per page, 1 to 100 (default 20)',
  chargeId: "only this charge's deliveries",
  id: 'the id',
  ...FILTER_DESCRIPTIONS,
}

/** A route's JSON Schema of its query string or path, as OpenAPI parameters described by name. */
export function parameters(schema: ObjectSchema, where: 'query' | 'path') {
  return Object.entries(schema.properties).map(([name, value]) => ({
    name,
    in: where,
    required: where === 'path' || (schema.required?.includes(name) ?? false),
    description: DESCRIPTIONS[name],
    schema: value,
  }))
}

export const refundFilterParameters = (schema: ObjectSchema) => parameters(schema, 'query').map((p) => ({ ...p, description: REFUND_FILTERS[p.name] ?? p.description }))

export const problem = (description: string, schema: Schema = ref('Problem')) => ({ description, content: { 'application/problem+json': { schema } } })

/** What every merchant route may answer besides its own outcomes. */
const MERCHANT_ERRORS = { '401': responseRef('Unauthorized') }

export const operation = (summary: string, description: string, extra: Schema, responses: Schema) => ({
  summary,
  description,
  ...extra,
  responses: { ...MERCHANT_ERRORS, ...responses },
})

/** A payable's payment-page token, as its creation (or an idempotent replay) answers it. */
const EPHEMERAL_TOKEN = {
  ...nullable({ type: 'string', pattern: '^et_[A-Za-z0-9_-]{43}$' }),
  description: 'the payment page’s bearer token (5 minutes at most, never past the deadline); only in the answer that issued it',
}

/** A payable's settlement while confirming and once settled; `description` says whose. */
const settlementOf = (description: string) => ({
  ...nullable({
    type: 'object',
    additionalProperties: false,
    required: ['txHash', 'blockNumber', 'logIndex', 'confirmations'],
    properties: { txHash: TX_HASH, blockNumber: COUNT, logIndex: COUNT, confirmations: { ...COUNT, description: 'blocks on top of the settlement’s (frozen once settled)' } },
  }),
  description,
})

/** `POST …/cancel` of a payable (a charge, a refund): no body, and the payable back as `schema`. */
export const cancelOperation = (summary: string, description: string, path: Schema, schema: string, conflict: string) =>
  operation(summary, `${description} No body, or \`{}\`.`, { ...path, requestBody: { required: false, content: json({ type: 'object', maxProperties: 0 }) } }, {
    '200': { description: `The ${schema.toLowerCase()}, \`canceled\`.`, content: json(ref(schema)) },
    '400': responseRef('BadRequest'),
    '404': responseRef('NotFound'),
    '409': problem(conflict),
    '413': responseRef('PayloadTooLarge'),
    '415': responseRef('UnsupportedMediaType'),
  })

/** `GET` of one thing by its path: the thing as `schema` (`what` says it in the 200's description). */
export const readOperation = (summary: string, description: string, path: Schema, what: string, schema: string) =>
  operation(summary, description, path, { '200': { description: what, content: json(ref(schema)) }, '400': responseRef('BadRequest'), '404': responseRef('NotFound') })

/** `GET` of a keyset page of the merchant's things, filtered by `parameters`. */
export const pageOperation = (summary: string, description: string, queryParameters: object[], schema: string) =>
  operation(summary, description, { parameters: queryParameters }, { '200': { description: 'A page.', content: json(ref(schema)) }, '400': responseRef('BadRequest') })

/** The 201 of a creation at `collection` (ids `<prefix>_` + 24 hex digits); an idempotent one also says when it replays. */
export const created = (collection: string, prefix: string, schema: string, idempotent: boolean) => ({
  description: idempotent ? 'Created (or replayed).' : 'Created.',
  headers: {
    Location: { required: true, description: `\`/api/v1/${collection}/<id>\``, schema: { type: 'string', pattern: `^/api/v1/${collection}/${prefix}_[0-9a-f]{24}$` } },
    ...(idempotent ? { 'Idempotent-Replayed': { required: false, description: 'on a replay of an Idempotency-Key', schema: { const: 'true' } } } : {}),
  },
  content: json(ref(schema)),
})

/** The `Idempotency-Key` header parameter, with the route's own schema of it. */
export const idempotencyKeyParameter = (schema: object) => ({ name: 'Idempotency-Key', in: 'header', required: false, description: '1 to 255 visible ASCII characters', schema })

/** The properties every payable's JSON (a charge's, a refund's) has alike; `says` what some of them mean for its kind. */
export const payableProperties = (says: { orderReference: string; acquirerId: string; fees: string; totalToPay: string; widgetUrl: string; settlement: string }) => ({
  token: ADDRESS,
  currency: { type: 'string', description: 'the token’s symbol' },
  orderReference: { ...BYTES16, description: says.orderReference },
  acquirerId: { ...BYTES16, description: says.acquirerId },
  fees: { ...AMOUNT, description: says.fees },
  totalToPay: { ...AMOUNT, description: says.totalToPay },
  deadline: { ...TIME, description: '`createdAt + CHARGE_TTL_SECONDS`' },
  widgetUrl: { type: 'string', format: 'uri', description: says.widgetUrl },
  ephemeralToken: EPHEMERAL_TOKEN,
  createdAt: TIME,
  settlement: settlementOf(says.settlement),
})

/** A closed object schema whose properties are listed in the order of `required` (the reference renders them so). */
export const objectOf = (required: readonly string[], properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties: Object.fromEntries(required.map((name) => [name, properties[name]!])),
})
