/**
 * The merchant API (PROCESSOR.md §4) as an OpenAPI 3.1 document, served at `GET /openapi.json` on the
 * checkout server (behind the same mutual TLS as everything there). The request side is not written
 * twice: bodies, path and query parameters and the Idempotency-Key header are the very JSON Schemas the
 * routes validate with (`schemas.ts`, `webhooks/routes.ts`). The answers' schemas are written here;
 * enumerations are typed by the unions they describe, so none can be left out.
 * test/openapi/checkout.test.ts validates the document and checks real answers over mutual TLS against it.
 */
import packageJson from '../../../../package.json' with { type: 'json' }
import type { Mismatch, PaymentOutcome } from '../../db/index.js'
import type { ChargeStatus } from '../../db/index.js'
import type { WebhookStatus } from '../../db/index.js'
import type { WebhookType } from '../../db/index.js'
import { problemSchema } from '../../../wire/index.js'
import { eventParams, listQuery } from '../../webhooks/index.js'
import { MAX_BODY_BYTES } from './problem-responses.js'
import { openApi } from '../../../platform/http/index.js'
import { ADDRESS, BYTES16, cancelOperation, CHARGE_ID, created, idempotencyKeyParameter, objectOf, operation, pageOperation, parameters, payableProperties, problem, readOperation, TX_HASH } from './openapi-parts.js'
import { paymentLinkPaths, paymentLinkSchemas } from './payment-link-openapi.js'
import { REFUND_WEBHOOK_TYPES, refundPaths, refundSchemas } from './refund-openapi.js'
import { chargeIdSchema, createChargeSchema, listChargesSchema } from './schemas.js'
import { webhookEndpointPaths, webhookEndpointSchemas } from './webhook-endpoint-openapi.js'

const { AMOUNT, COUNT, described, json, nullable, ref, responseRef, TIME } = openApi

const STATUSES: Record<ChargeStatus, string> = {
  'awaiting-payment': 'created, not paid yet (again, after a reorg took its payment back)',
  confirming: 'a matching settlement is on the chain, not yet `CONFIRMATION_BLOCKS` deep',
  settled: 'paid and confirmed',
  'partially-refunded': 'settled, and settled refunds add up to less than what the beneficiary received',
  refunded: 'settled, and settled refunds add up to what the beneficiary received',
  expired: 'the deadline passed unpaid',
  canceled: 'canceled by the merchant while awaiting payment',
}
const OUTCOMES: Record<PaymentOutcome, string> = {
  matched: 'paid the charge',
  mismatched: 'recorded without paying it (see `mismatch`)',
  late: 'came after the charge expired or was canceled',
  second: 'came after another payment paid the charge',
}
const MISMATCHES: Record<Mismatch, string> = { 'wrong-token': 'another token', 'wrong-recipient': 'paid to someone else than the beneficiary', underpaid: 'less than `amount`' }
const WEBHOOK_TYPES: Record<WebhookType, string> = {
  'charge.confirming': 'a matching settlement was seen',
  'charge.settled': 'confirmed',
  'charge.expired': 'the deadline passed',
  'charge.canceled': 'canceled by the merchant',
  'charge.reverted': 'a reorg took the paying settlement back',
  'charge.late_payment': 'a payment of an expired, canceled or already paid charge; `data.payment` is that payment',
  ...REFUND_WEBHOOK_TYPES,
}
const DELIVERY_STATUSES: Record<WebhookStatus, string> = {
  pending: 'waiting for its (next) attempt',
  delivered: 'answered with a 2xx',
  failed: 'its retry window ended without a 2xx',
}

const CHARGE = objectOf(
  ['id', 'status', 'amount', 'token', 'currency', 'beneficiary', 'orderId', 'orderReference', 'acquirerId', 'fees', 'totalToPay', 'amountRefunded', 'deadline', 'widgetUrl', 'ephemeralToken', 'createdAt', 'settlement', 'paymentLinkId'],
  {
    id: CHARGE_ID,
    status: described(STATUSES),
    amount: { ...AMOUNT, description: 'what the beneficiary receives' },
    beneficiary: ADDRESS,
    orderId: { type: 'string' },
    amountRefunded: { ...AMOUNT, description: 'the sum of its settled refunds' },
    ...payableProperties({
      orderReference: 'random; the payer’s settlement carries it (high 16 bytes of `ref`)',
      acquirerId: 'the merchant’s acquirer, or zero',
      fees: 'the contract’s `calculateFees(amount, acquirerId)`',
      totalToPay: '`amount + fees`, what the payer signs for',
      widgetUrl: 'the payment page',
      settlement: 'the paying settlement, while confirming and once settled',
    }),
    paymentLinkId: { ...nullable({ type: 'string', pattern: '^pl_[0-9a-f]{24}$' }), description: 'the payment link a payer made it from, or null' },
  },
)

export function checkoutOpenApi() {
  const chargeId = { parameters: parameters(chargeIdSchema.params, 'path') }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Checkout engine — merchant API',
      version: packageJson.version,
      description: [
        'Charges paid on the chain through the settlement contract, their payments, and the webhooks that report them.',
        '',
        '**Mutual TLS**: a client certificate issued by the processor CA for the merchant (SAN `urn:merchant:<id>`), unexpired and not revoked, or the handshake fails before HTTP. A certificate the database does not know for its merchant, or revoked while a connection was kept alive, is a 401.',
        '',
        `Bodies are \`application/json\` (anything else 415) of at most ${MAX_BODY_BYTES} bytes (413). Inputs are checked by the JSON Schemas below as they are, without type coercion; an unknown field, query parameter or path is refused. Errors are \`application/problem+json\` (RFC 9457) with \`param\` naming the offending field, parameter or header. An unknown path or method is a 404 (\`#/components/responses/NotFound\`).`,
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ merchantCertificate: [] }],
    paths: {
      '/api/v1/charges': {
        post: operation(
          'Create a charge',
          'A charge for `amount` of `token` to `beneficiary`, with the contract’s fees on top (`totalToPay` is what the payer signs for). `orderId` is unique per merchant. `expiresInSeconds` (optional, an integer from 60 up to the engine’s `CHARGE_TTL_SECONDS`, the default) sets this charge’s `deadline`. With an `Idempotency-Key`, the same key and body give the same charge again (201, `Idempotent-Replayed: true`, a fresh `ephemeralToken` while it can be paid, issued beside the first answer’s, which keeps working until one of them opens the session); another body with that key is a 422.',
          {
            parameters: [idempotencyKeyParameter(createChargeSchema.headers.properties['idempotency-key'])],
            requestBody: { required: true, content: json(createChargeSchema.body) },
          },
          {
            '201': created('charges', 'ch', 'Charge', true),
            '400': responseRef('BadRequest'),
            '409': problem('The merchant already has a charge for this `orderId`; `chargeId` names it.', ref('DuplicateOrderProblem')),
            '413': responseRef('PayloadTooLarge'),
            '415': responseRef('UnsupportedMediaType'),
            '422': problem('This Idempotency-Key was used with another body (`param`: `Idempotency-Key`).'),
            '503': {
              ...problem('The chain node did not answer the fee lookup: nothing was stored; send the same request again after `Retry-After` seconds.'),
              headers: { 'Retry-After': { required: true, description: 'seconds to wait before retrying', schema: { type: 'string', pattern: '^[0-9]+$' } } },
            },
          },
        ),
        get: pageOperation(
          'List charges',
          'The merchant’s charges, newest first, in keyset pages: a charge created while paging never shifts them.',
          parameters(listChargesSchema.querystring, 'query'),
          'ChargePage',
        ),
      },
      '/api/v1/charges/{id}': {
        get: readOperation('Read a charge', 'The charge as it is now (`ephemeralToken` is null when reading).', chargeId, 'The charge.', 'Charge'),
      },
      '/api/v1/charges/{id}/payments': {
        get: readOperation('Payments of a charge', 'Every settlement seen for the charge’s order reference, and what it did.', chargeId, 'The payments, oldest first.', 'PaymentList'),
      },
      '/api/v1/charges/{id}/cancel': {
        post: cancelOperation('Cancel a charge', 'Only while it awaits payment.', chargeId, 'Charge', 'The charge is not awaiting payment.'),
      },
      ...refundPaths(),
      ...paymentLinkPaths(),
      ...webhookEndpointPaths(),
      '/api/v1/webhook-deliveries': {
        get: operation(
          'Webhook delivery log',
          'The merchant’s webhook events, newest first, each with its attempts (newest first), in keyset pages.',
          { parameters: parameters(listQuery, 'query') },
          { '200': { description: 'A page.', content: json(ref('DeliveryPage')) }, '400': responseRef('BadRequest') },
        ),
      },
      '/api/v1/webhook-deliveries/{id}/retry': {
        post: operation(
          'Retry a webhook',
          'Queues the event again now, whatever its status, with a fresh retry window. A retry while an attempt is in flight takes effect when that attempt ends.',
          { parameters: parameters(eventParams, 'path') },
          {
            '202': { description: 'The event, `pending` again.', content: json(ref('WebhookDelivery')) },
            '400': responseRef('BadRequest'),
            '404': responseRef('NotFound'),
          },
        ),
      },
      '/health': {
        get: {
          summary: 'Health of this replica',
          description: 'Needs a valid client certificate (the TLS handshake does) but no merchant. 503 `degraded` when this replica is the active reconciler and the explorer is unreachable, or the node fails.',
          responses: {
            '200': { description: 'Healthy.', content: json(ref('Health')) },
            '503': { description: 'Degraded.', content: json(ref('Health')) },
          },
        },
      },
      '/ready': {
        get: {
          summary: 'Readiness of this replica',
          description: 'Needs a valid client certificate but no merchant. 200 while this replica can take charges: the database answers, the node answers, and, when it is the active reconciler, the explorer’s feed is reached. A 503 problem naming what is missing otherwise. A load balancer routes to ready replicas only.',
          responses: {
            '200': { description: 'Ready.', content: json(ref('Ready')) },
            '503': problem('Not ready; `detail` says why.'),
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          description: 'Needs a valid client certificate but no merchant. Text exposition format 0.0.4, names prefixed `checkout_`: the process (start time, uptime, memory), answers by method and status, the reconciler’s role and feed, the loaded CRL number.',
          responses: { '200': { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/openapi.json': {
        get: {
          summary: 'This document',
          description: 'The OpenAPI 3.1 description of the merchant API (like /health, /ready and /metrics, no merchant needed).',
          responses: {
            '200': {
              description: 'The document.',
              content: json({
                type: 'object',
                required: ['openapi', 'info', 'paths', 'components'],
                properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
              }),
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        merchantCertificate: { type: 'mutualTLS', description: 'A client certificate from the processor CA naming the merchant (`npm run admin -- issue-certificate`).' },
      },
      responses: {
        BadRequest: problem('Malformed JSON, a body that is not an object, a missing, unknown or mistyped field, a malformed or unsupported value, or a bad query or path parameter or cursor; `param` names it.'),
        Unauthorized: problem('The client certificate is not one the database knows for its merchant, or it was revoked; the connection is closed.'),
        NotFound: problem('No such charge or delivery of this merchant, or no such route.'),
        PayloadTooLarge: problem(`The body is over ${MAX_BODY_BYTES} bytes.`),
        UnsupportedMediaType: problem('The body is not application/json.'),
      },
      schemas: {
        Charge: CHARGE,
        ChargeWithPayment: {
          ...CHARGE,
          description: 'a charge with the payment a `charge.late_payment` reports',
          required: [...CHARGE.required, 'payment'],
          properties: { ...CHARGE.properties, payment: ref('Payment') },
        },
        ChargePage: {
          type: 'object',
          additionalProperties: false,
          required: ['charges', 'nextCursor'],
          properties: { charges: { type: 'array', items: ref('Charge'), maxItems: 100 }, nextCursor: nullable({ type: 'string', minLength: 1 }) },
        },
        Payment: {
          type: 'object',
          additionalProperties: false,
          required: ['txHash', 'blockNumber', 'logIndex', 'token', 'payer', 'recipient', 'amount', 'fee', 'acquirerId', 'outcome', 'mismatch', 'beforeDeadline', 'timestamp', 'removed'],
          properties: {
            txHash: TX_HASH,
            blockNumber: COUNT,
            logIndex: COUNT,
            token: ADDRESS,
            payer: ADDRESS,
            recipient: ADDRESS,
            amount: AMOUNT,
            fee: AMOUNT,
            acquirerId: BYTES16,
            outcome: described(OUTCOMES),
            mismatch: { type: 'array', items: described(MISMATCHES), uniqueItems: true },
            beforeDeadline: { type: 'boolean', description: 'mined before the charge’s deadline' },
            timestamp: { ...COUNT, description: 'the block’s, Unix seconds' },
            removed: { type: 'boolean', description: 'a reorg took it back' },
          },
        },
        PaymentList: { type: 'object', additionalProperties: false, required: ['payments'], properties: { payments: { type: 'array', items: ref('Payment') } } },
        WebhookEvent: {
          type: 'object',
          description: 'The body POSTed to the merchant’s `webhookUrl` (Standard Webhooks headers).',
          additionalProperties: false,
          required: ['type', 'timestamp', 'data'],
          properties: {
            type: described(WEBHOOK_TYPES),
            timestamp: TIME,
            data: { anyOf: [ref('Charge'), ref('ChargeWithPayment'), ref('Refund')], description: 'the charge as this API renders it; for `charge.late_payment` with the `payment`; for `refund.*` the refund' },
          },
        },
        WebhookDelivery: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'chargeId', 'type', 'status', 'payload', 'createdAt', 'deliveredAt', 'nextAttemptAt', 'lastError', 'attempts'],
          properties: {
            id: { type: 'string', pattern: '^msg_[0-9a-f]{24}$', description: 'the `webhook-id` header of every attempt' },
            chargeId: { type: 'string' },
            type: described(WEBHOOK_TYPES),
            status: described(DELIVERY_STATUSES),
            payload: ref('WebhookEvent'),
            createdAt: TIME,
            deliveredAt: nullable(TIME),
            nextAttemptAt: { ...nullable(TIME), description: 'when the next attempt is due (pending only)' },
            lastError: nullable({ type: 'string' }),
            attempts: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['attemptedAt', 'statusCode', 'error', 'durationMs'],
                properties: { attemptedAt: TIME, statusCode: nullable({ type: 'integer' }), error: nullable({ type: 'string' }), durationMs: COUNT },
              },
            },
          },
        },
        DeliveryPage: {
          type: 'object',
          additionalProperties: false,
          required: ['deliveries', 'nextCursor'],
          properties: { deliveries: { type: 'array', items: ref('WebhookDelivery'), maxItems: 100 }, nextCursor: nullable({ type: 'string', pattern: '^s[0-9]+$' }) },
        },
        Health: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'reconciler', 'crlNumber'],
          properties: {
            status: { enum: ['ok', 'degraded'] },
            reconciler: {
              type: 'object',
              additionalProperties: false,
              required: ['role', 'explorerConnected', 'head'],
              properties: {
                role: { enum: ['active', 'standby'], description: 'whether this replica holds the reconciler lock' },
                explorerConnected: { type: 'boolean' },
                head: { ...nullable(COUNT), description: 'the chain head it last saw (active only)' },
              },
            },
            crlNumber: { ...nullable(COUNT), description: 'the CRL loaded into the TLS context' },
            chain: { type: 'string', description: 'the node’s last error, while it lasts' },
          },
        },
        Ready: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { const: 'ready' } } },
        Problem: problemSchema,
        ...refundSchemas(problemSchema),
        ...paymentLinkSchemas(),
        ...webhookEndpointSchemas(),
        DuplicateOrderProblem: {
          ...problemSchema,
          required: [...problemSchema.required, 'chargeId'],
          properties: { ...problemSchema.properties, chargeId: { type: 'string', pattern: '^ch_[0-9a-f]{24}$', description: 'the charge that has this orderId' } },
        },
      },
    },
  }
}
