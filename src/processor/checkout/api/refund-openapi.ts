/**
 * The refund part of the merchant API's OpenAPI document (issue 23), spliced in by `openapi.ts`; what it
 * shares with the charge part is `openapi-parts.ts`. Request schemas are the routes' own (`schemas.ts`).
 */
import type { RefundStatus, WebhookType } from '../../db/index.js'
import { openApi } from '../../../platform/http/index.js'
import { ADDRESS, cancelOperation, CHARGE_ID, created, idempotencyKeyParameter, objectOf, operation, pageOperation, parameters, payableProperties, problem, readOperation, refundFilterParameters } from './openapi-parts.js'
import { chargeIdSchema, createRefundSchema, listRefundsSchema, refundIdSchema } from './schemas.js'

const { AMOUNT, described, json, nullable, ref, responseRef } = openApi

export const REFUND_WEBHOOK_TYPES: Record<Extract<WebhookType, `refund.${string}`>, string> = {
  'refund.created': 'a refund was created; `data` is the refund, awaiting the merchant wallet’s signature',
  'refund.confirming': 'the refund’s settlement was seen',
  'refund.settled': 'the refund is confirmed; the charge’s `amountRefunded` and status include it',
  'refund.expired': 'the refund’s deadline passed unpaid',
  'refund.canceled': 'canceled by the merchant',
  'refund.reverted': 'a reorg took the refund’s settlement back; it awaits a signature again (and no longer counts in `amountRefunded`)',
}

const REFUND_STATUSES: Record<RefundStatus, string> = {
  'awaiting-signature': 'created; the merchant’s wallet has not paid it yet (again, after a reorg took its settlement back)',
  confirming: 'its settlement is on the chain, not yet `CONFIRMATION_BLOCKS` deep',
  settled: 'paid back and confirmed',
  expired: 'the deadline passed unpaid',
  canceled: 'canceled by the merchant while awaiting a signature',
}

export function refundPaths() {
  const chargeId = { parameters: parameters(chargeIdSchema.params, 'path') }
  const refundId = { parameters: parameters(refundIdSchema.params, 'path') }
  return {
    '/api/v1/charges/{id}/refunds': {
      post: operation(
        'Refund a charge',
        'A refund of `amount` of a settled (or partly refunded) charge to its payer: a payment request from the charge’s beneficiary (the merchant’s wallet) with its own `orderReference`, paid like any payment through its `widgetUrl` (payment link and QR code). The processor holds no merchant key. Refunds awaiting a signature, confirming or settled together never exceed what the beneficiary received. The merchant pays the contract’s base fee on top (`fees`, acquirer zero); the payer receives exactly `amount`. With an `Idempotency-Key`, the same key, charge and body give the same refund again (201, `Idempotent-Replayed: true`, a fresh `ephemeralToken` while it awaits a signature, issued beside the first answer’s, which keeps working until one of them opens the session); anything else with that key is a 422.',
        {
          parameters: [...chargeId.parameters, idempotencyKeyParameter(createRefundSchema.headers.properties['idempotency-key'])],
          requestBody: { required: true, content: json(createRefundSchema.body) },
        },
        {
          '201': created('refunds', 're', 'Refund', true),
          '400': responseRef('BadRequest'),
          '404': responseRef('NotFound'),
          '409': problem('The charge is not settled, or `amount` is more than what is left to refund (`refundable` says how much is).', ref('RefundProblem')),
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
          '422': problem('This Idempotency-Key was used with another charge or body (`param`: `Idempotency-Key`).'),
          '503': problem('The chain node did not answer the fee lookup: nothing was stored; send the same request again later.'),
        },
      ),
      get: readOperation('Refunds of a charge', 'Every refund of the charge, newest first.', chargeId, 'The refunds.', 'RefundList'),
    },
    '/api/v1/refunds': {
      get: pageOperation(
        'List refunds',
        'The merchant’s refunds, newest first, in keyset pages (a refund created while paging never shifts them): the rows of `GET /api/v1/reports/refunds.csv` with the same filters, in the same order. `from`/`to` are the refund’s creation time; `beneficiary` and `orderId` are the charge’s.',
        refundFilterParameters(listRefundsSchema.querystring),
        'RefundPage',
      ),
    },
    '/api/v1/refunds/{refundId}': {
      get: readOperation('Read a refund', 'The refund as it is now (`ephemeralToken` is null when reading).', refundId, 'The refund.', 'Refund'),
    },
    '/api/v1/refunds/{refundId}/cancel': {
      post: cancelOperation('Cancel a refund', 'Only while it awaits a signature; what it reserved can be refunded again.', refundId, 'Refund', 'The refund is not awaiting a signature.'),
    },
  }
}

export function refundSchemas(problemSchema: { required: readonly string[]; properties: Record<string, object> }) {
  return {
    Refund: objectOf(
      ['id', 'chargeId', 'orderId', 'status', 'amount', 'reason', 'token', 'currency', 'payer', 'recipient', 'orderReference', 'acquirerId', 'fees', 'totalToPay', 'deadline', 'widgetUrl', 'ephemeralToken', 'createdAt', 'settlement'],
      {
        id: { type: 'string', pattern: '^re_[0-9a-f]{24}$' },
        chargeId: CHARGE_ID,
        orderId: { type: 'string', description: 'the charge’s' },
        status: described(REFUND_STATUSES),
        amount: { ...AMOUNT, description: 'what the charge’s payer receives back' },
        reason: nullable({ type: 'string' }),
        payer: { ...ADDRESS, description: 'who pays the refund: the charge’s beneficiary (the merchant’s wallet)' },
        recipient: { ...ADDRESS, description: 'who receives it: the payer of the charge’s settlement' },
        ...payableProperties({
          orderReference: 'random; the refund’s settlement carries it (high 16 bytes of `ref`)',
          acquirerId: 'zero: a refund pays the base fee only',
          fees: 'the contract’s `calculateFees(amount, 0)`, paid by the merchant on top',
          totalToPay: '`amount + fees`, what the merchant’s wallet signs for',
          widgetUrl: 'the refund’s payment page, for the merchant’s wallet',
          settlement: 'the refund’s settlement, while confirming and once settled',
        }),
      },
    ),
    RefundPage: {
      type: 'object',
      additionalProperties: false,
      required: ['refunds', 'nextCursor'],
      properties: { refunds: { type: 'array', items: ref('Refund'), maxItems: 100 }, nextCursor: nullable({ type: 'string', minLength: 1 }) },
    },
    RefundList: { type: 'object', additionalProperties: false, required: ['refunds'], properties: { refunds: { type: 'array', items: ref('Refund') } } },
    RefundProblem: {
      ...problemSchema,
      properties: { ...problemSchema.properties, refundable: { ...AMOUNT, description: 'what is left to refund (with a 409 for `amount`)' } },
    },
  }
}
