/**
 * The payment-link and report part of the merchant API's OpenAPI document (issue 23), spliced in by
 * `openapi.ts`, with the parts the sections share (`openapi-parts.ts`). Request
 * schemas are the routes' own (`schemas.ts`); the CSV columns are the report's own (`report-routes.ts`).
 */
import { openApi } from '../../../platform/http/index.js'
import { ADDRESS, created, operation, pageOperation, parameters, problem, readOperation, refundFilterParameters } from './openapi-parts.js'
import type { PaymentLinkStatus } from './payment-link-json.js'
import { chargeColumns, refundColumns } from './report-routes.js'
import { chargeReportSchema, createPaymentLinkSchema, listPaymentLinksSchema, paymentLinkIdSchema, refundReportSchema } from './schemas.js'

const { AMOUNT, COUNT, described, json, nullable, ref, responseRef, TIME } = openApi

const LINK_STATUSES: Record<PaymentLinkStatus, string> = {
  active: 'a payer can make a charge from it',
  'used-up': '`uses` reached `maxUses`; active again when a hold ends or one of its charges expires or is canceled',
  expired: '`expiresAt` passed',
  deactivated: 'the merchant deactivated it',
}

export function paymentLinkPaths() {
  const linkId = { parameters: parameters(paymentLinkIdSchema.params, 'path') }
  return {
    '/api/v1/payment-links': {
      post: operation(
        'Create a payment link',
        'A reusable public page (`url`, on the checkout widget) asking for `amount` of `token` to `beneficiary`, checked and priced as a charge would be. Loading the page creates nothing; each press of its "Pay" button makes the payer an ordinary charge (order id `<link id>.<n>`, `paymentLinkId` set, fees quoted then), reconciled and reported by webhooks like any other. `uses` counts its paid charges (confirming, settled, refunded) and those awaiting payment within their hold (`PAYMENT_LINK_HOLD_SECONDS` after the press): the link takes no new charge while `uses` is `maxUses`, after `expiresAt`, or once deactivated. Presses are limited per client address and held charges per link (widget settings `PAYMENT_LINK_*`).',
        { requestBody: { required: true, content: json(createPaymentLinkSchema.body) } },
        {
          '201': created('payment-links', 'pl', 'PaymentLink', false),
          '400': responseRef('BadRequest'),
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
          '503': problem('The chain node did not answer the fee lookup: nothing was stored; send the same request again later.'),
        },
      ),
      get: pageOperation('List payment links', 'The merchant’s payment links, newest first, in keyset pages.', parameters(listPaymentLinksSchema.querystring, 'query'), 'PaymentLinkPage'),
    },
    '/api/v1/payment-links/{linkId}': {
      get: readOperation('Read a payment link', 'The link as it is now, with its uses.', linkId, 'The link.', 'PaymentLink'),
    },
    '/api/v1/payment-links/{linkId}/deactivate': {
      post: operation(
        'Deactivate a payment link',
        'For good: its page says so and takes no new charge; charges already made go on. Deactivating again keeps the first `deactivatedAt`. No body, or `{}`.',
        { ...linkId, requestBody: { required: false, content: json({ type: 'object', maxProperties: 0 }) } },
        {
          '200': { description: 'The link, `deactivated`.', content: json(ref('PaymentLink')) },
          '400': responseRef('BadRequest'),
          '404': responseRef('NotFound'),
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
        },
      ),
    },
    '/api/v1/reports/charges.csv': {
      get: operation(
        'Charges report (CSV)',
        `Every charge the filters match (those of \`GET /api/v1/charges\`), newest first, streamed as CSV (RFC 4180: a header line, CRLF line ends, fields with a comma, quote or line break quoted; a cell starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab, a CR or an apostrophe — merchant text a spreadsheet would run as a formula — gets an apostrophe in front: drop one leading apostrophe to compare a row with the JSON API) in constant memory: the rows are read in keyset pages as the client takes them, so the report is the listing’s pages laid end to end. Amounts come twice, in the token’s smallest units and with the decimal point (all the token’s decimals; empty if the token left the contract’s directory). Columns: ${chargeColumns.map(([name]) => `\`${name}\``).join(', ')}. A failure after the first rows cuts the transfer short (no final chunk): a client sees an incomplete transfer, never a shorter report.`,
        { parameters: parameters(chargeReportSchema.querystring, 'query') },
        {
          '200': {
            description: 'The report.',
            headers: { 'Content-Disposition': { required: true, description: '`attachment; filename="charges.csv"`', schema: { type: 'string' } } },
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          '400': responseRef('BadRequest'),
        },
      ),
    },
    '/api/v1/reports/refunds.csv': {
      get: operation(
        'Refunds report (CSV)',
        `Every refund the filters match, newest first, streamed as CSV as the charges report is (same format, same constant memory, same way of failing). \`from\`/\`to\` are the refund’s creation time; \`beneficiary\` is the charge’s (the wallet that pays the refund), \`orderId\` the charge’s. Columns: ${refundColumns.map(([name]) => `\`${name}\``).join(', ')}.`,
        { parameters: refundFilterParameters(refundReportSchema.querystring) },
        {
          '200': {
            description: 'The report.',
            headers: { 'Content-Disposition': { required: true, description: '`attachment; filename="refunds.csv"`', schema: { type: 'string' } } },
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          '400': responseRef('BadRequest'),
        },
      ),
    },
  }
}

export function paymentLinkSchemas() {
  return {
    PaymentLink: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'url', 'status', 'amount', 'token', 'currency', 'beneficiary', 'description', 'maxUses', 'expiresAt', 'uses', 'chargesCreated', 'createdAt', 'deactivatedAt'],
      properties: {
        id: { type: 'string', pattern: '^pl_[0-9a-f]{24}$' },
        url: { type: 'string', format: 'uri', description: 'the public page: `<widget>/l/<id>`' },
        status: described(LINK_STATUSES),
        amount: { ...AMOUNT, description: 'what the beneficiary receives per charge' },
        token: ADDRESS,
        currency: { type: 'string', description: 'the token’s symbol' },
        beneficiary: ADDRESS,
        description: { type: 'string', description: 'shown to payers on the page' },
        maxUses: nullable({ type: 'integer', minimum: 1 }),
        expiresAt: nullable(TIME),
        uses: { ...COUNT, description: 'its charges paid (confirming, settled, refunded) or awaiting payment within their hold' },
        chargesCreated: { ...COUNT, description: 'every charge made from it, whatever became of it' },
        createdAt: TIME,
        deactivatedAt: nullable(TIME),
      },
    },
    PaymentLinkPage: {
      type: 'object',
      additionalProperties: false,
      required: ['paymentLinks', 'nextCursor'],
      properties: { paymentLinks: { type: 'array', items: ref('PaymentLink'), maxItems: 100 }, nextCursor: nullable({ type: 'string', minLength: 1 }) },
    },
  }
}
