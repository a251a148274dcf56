/**
 * A refund's public routes on the widget (issue 23), beside the charges' `/s/…`: `GET /r/:refundId` (the
 * page, with a fresh payment link and QR code while the refund awaits a signature, at most once per
 * `linkIntervalSeconds` as for charges), `GET /r/:refundId/api/session` (what the merchant's wallet signs:
 * the same session shape as a charge's, to the charge's payer, so any wallet that pays a charge link pays a
 * refund link), and its live status as server-sent events.
 */
import type { ServerResponse } from 'node:http'
import { hashEphemeralToken, issueEphemeralToken } from '../checkout/index.js'
import { refundWidgetUrlOf } from '../charges/index.js'
import { findMerchant, refundQueries, type RefundRow } from '../db/index.js'
import { sendHtmlPage, sendJson, sendProblem } from '../../platform/http/index.js'
import { withTrailingSlash, type Route, type RouteRequest } from '../../platform/route-server/index.js'
import type { PaymentSession } from '../../sdk/index.js'
import { missingChargePage } from './payment-page.js'
import { corsHeaders } from './payment-session.js'
import { isClosed, refundLiveStatus } from './live-status.js'
import { refundPage, type RefundPageView } from './refund-page.js'
import { paymentLinkView, type WidgetContext } from './routes.js'

const REFUND = ':id(^re_[0-9a-f]{24}$)'
const BEARER = /^Bearer +(\S+)\s*$/i

export function refundRoutes(context: WidgetContext): Route[] {
  const { db } = context
  return [
    ...withTrailingSlash({ method: 'GET', url: `/r/${REFUND}`, handle: (request) => showRefundPage(context, request) }),
    { method: 'GET', url: `/r/${REFUND}/api/session`, handle: ({ req, res, params: [id] }) => answerRefundSession(context, id!, req.headers.authorization, res) },
    { method: 'OPTIONS', url: `/r/${REFUND}/api/session`, handle: ({ res }) => void res.writeHead(204, corsHeaders).end() },
    {
      method: 'GET',
      url: `/r/${REFUND}/events`,
      handle: ({ req, res, params: [id] }) =>
        context.live.serve(req, res, id!, async () => {
          const refund = await refundQueries.findById(db.pool, id!)
          return refund && refundLiveStatus(refund)
        }),
    },
  ]
}

async function showRefundPage(context: WidgetContext, { req, res, params: [id] }: RouteRequest): Promise<void> {
  const refund = await refundQueries.findById(context.db.pool, id!)
  if (!refund) return sendHtmlPage(res, 404, missingChargePage(id!, 'refund request'))
  const merchant = await findMerchant(context.db.pool, refund.merchantId)
  const view: RefundPageView = { refund, merchantName: merchant?.name ?? refund.merchantId, explorerUrl: context.explorerUrl, token: context.token(refund.token) }
  if (refund.status === 'awaiting-signature' && req.method === 'GET') {
    const issued = issueEphemeralToken(refund.deadline)
    if (await refundQueries.showPaymentLink(context.db.pool, refund.id, issued.hash, issued.expiresAt, context.linkIntervalSeconds * 1000)) {
      view.payment = await paymentLinkView(`${refundWidgetUrlOf(context.publicUrl(), refund.id)}?t=${issued.token}`, issued.expiresAt)
    } else {
      view.linkShownRecently = context.linkIntervalSeconds
      return sendHtmlPage(res, 429, refundPage(view), { 'retry-after': String(context.linkIntervalSeconds) })
    }
  }
  sendHtmlPage(res, isClosed(refund.status) ? 410 : 200, refundPage(view))
}

/** As a charge's session (payment-session.ts): the token is used up whatever the answer; 401, 404, 409 and 410 are problems. */
async function answerRefundSession(context: WidgetContext, id: string, authorization: string | undefined, res: ServerResponse): Promise<void> {
  const refuse = (status: number, detail: string) =>
    sendProblem(res, status, detail, { ...corsHeaders, ...(status === 401 && { 'www-authenticate': 'Bearer realm="payment session"' }) })
  const refuseState = (refund: RefundRow) =>
    isClosed(refund.status) ? refuse(410, `refund ${id} is ${refund.status}`) : refuse(409, `refund ${id} is already paid (${refund.status}): there is nothing more to pay`)
  const token = BEARER.exec(authorization ?? '')?.[1]
  if (!token) return refuse(401, 'an Authorization: Bearer <ephemeral token> header is required (the t parameter of the payment link)')
  const refund = await refundQueries.consumeEphemeralToken(context.db.pool, id, hashEphemeralToken(token))
  if (!refund) {
    const known = await refundQueries.findById(context.db.pool, id)
    if (!known) return refuse(404, `no refund ${id}`)
    if (known.status !== 'awaiting-signature') return refuseState(known)
    return refuse(401, 'the token is unknown, expired or already used: load the refund page again for a fresh payment link')
  }
  if (refund.status !== 'awaiting-signature') return refuseState(refund)
  const session: PaymentSession = {
    token: refund.token,
    beneficiary: refund.recipient,
    principal: refund.amount,
    orderReference: refund.orderReference,
    acquirerId: refund.acquirerId,
    deadline: Math.floor(refund.deadline.getTime() / 1000),
    ...context.session,
  }
  sendJson(res, 200, session, corsHeaders)
}
