/**
 * The parts of the merchant API's OpenAPI document that its sections share (`openapi.ts` composes the
 * charge, refund, payment-link and webhook-endpoint sections): address and hash shapes, parameters
 * described by name, problem answers, the merchant operation, and what every payable (a charge, a
 * refund) answers alike — its page token, its settlement, its cancellation. The sections import these
 * and nothing from each other or from `openapi.ts`, so the document's modules form no cycle.
 */
import { openApi } from '../../../platform/http/index.js'

const { json, nullable, ref, responseRef, COUNT } = openApi
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
export const EPHEMERAL_TOKEN = {
  ...nullable({ type: 'string', pattern: '^et_[A-Za-z0-9_-]{43}$' }),
  description: 'the payment page’s bearer token (5 minutes at most, never past the deadline); only in the answer that issued it',
}

/** A payable's settlement while confirming and once settled; `description` says whose. */
export const settlementOf = (description: string) => ({
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
