/**
 * The widget's routes: the payment page (a fresh payment link and its QR code on a load while the charge
 * awaits payment — never on HEAD, and at most once per `linkIntervalSeconds` while the last link is
 * unused, so a link preview or a second screen does not break the QR code the payer is looking at), the wallet's session call, the page's live status as server-sent events, and
 * `/health` (`/ready` and `/metrics` are added by start-widget.ts). Charges are read from PostgreSQL through the db layer on every request: any number of widget
 * replicas serve the same pages.
 */
import QRCode from 'qrcode'
import type { Hex } from 'viem'
import { issueEphemeralToken } from '../checkout/index.js'
import { widgetUrlOf } from '../charges/index.js'
import type { DirectoryToken } from '../../chain/index.js'
import { chargeQueries, findChargeById, type ChargeRow } from '../db/index.js'
import { findMerchant } from '../db/index.js'
import type { Database } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { escapeHtml } from '../../platform/html/index.js'
import { sendJson, sendHtmlPage } from '../../platform/http/index.js'
import { withTrailingSlash, type RouteRequest, type Route } from '../../platform/route-server/index.js'
import type { LiveStreams } from './live-streams.js'
import { isClosed, liveStatus } from './live-status.js'
import { missingChargePage, paymentPage, type PaymentPageView } from './payment-page.js'
import { answerSession, corsHeaders, type SessionSettings } from './payment-session.js'

export interface WidgetContext {
  db: Database
  log: Logger
  live: LiveStreams
  /** A supported token by its lower-case address. */
  token(address: Hex): DirectoryToken | undefined
  session: SessionSettings
  explorerUrl: string
  /** Where payers reach the pages: the payment link's base. */
  publicUrl(): string
  linkIntervalSeconds: number
}

const CHARGE = ':id(^ch_[0-9a-f]{24}$)'
const QR = { errorCorrectionLevel: 'M', margin: 4, scale: 5 } as const

export function widgetRoutes(context: WidgetContext): Route[] {
  const { db } = context
  return [
    ...withTrailingSlash({ method: 'GET', url: `/s/${CHARGE}`, handle: (request) => showPaymentPage(context, request) }),
    {
      method: 'GET',
      url: `/s/${CHARGE}/api/session`,
      handle: ({ req, res, params: [id] }) => answerSession(db.pool, context.session, id!, req.headers.authorization, res),
    },
    { method: 'OPTIONS', url: `/s/${CHARGE}/api/session`, handle: ({ res }) => void res.writeHead(204, corsHeaders).end() },
    { method: 'GET', url: `/s/${CHARGE}/events`, handle: (request) => streamStatus(context, request) },
    {
      method: 'GET',
      url: '/health',
      async handle({ res }) {
        const ok = await db.pool.query('SELECT 1').then(() => true, () => false)
        sendJson(res, ok ? 200 : 503, ok ? { status: 'ok' } : { status: 'degraded', database: 'unreachable' })
      },
    },
  ]
}

/** Unknown paths: under /s/ a payment request that does not exist, anything else a plain 404 page. */
export function widgetNotFound({ res, path }: RouteRequest): void {
  const id = /^\/s\/([^/]+)/.exec(path)?.[1]
  if (id) return sendHtmlPage(res, 404, missingChargePage(id.slice(0, 100)))
  sendHtmlPage(res, 404, { title: 'Not found', body: `<main><h1>Not found</h1><p>Nothing is served at <span class="mono">${escapeHtml(path.slice(0, 200))}</span>.</p></main>` })
}

async function showPaymentPage(context: WidgetContext, { req, res, params: [id] }: RouteRequest): Promise<void> {
  const charge = await findChargeById(context.db.pool, id!)
  if (!charge) return sendHtmlPage(res, 404, missingChargePage(id!))
  const merchant = await findMerchant(context.db.pool, charge.merchantId)
  const view: PaymentPageView = { charge, merchantName: merchant?.name ?? charge.merchantId, explorerUrl: context.explorerUrl, token: context.token(charge.token) }
  // HEAD is asked by link checkers and previews: it shows nothing, so it issues nothing.
  if (charge.status === 'awaiting-payment' && req.method === 'GET') {
    view.payment = await issuePaymentLink(context, charge)
    if (!view.payment) {
      view.linkShownRecently = context.linkIntervalSeconds
      return sendHtmlPage(res, 429, paymentPage(view), { 'retry-after': String(context.linkIntervalSeconds) })
    }
  }
  sendHtmlPage(res, isClosed(charge.status) ? 410 : 200, paymentPage(view))
}

/**
 * A fresh ephemeral token replaces the charge's previous one: the link in the last page's QR code stops
 * working. Undefined when a page showed a link less than `linkIntervalSeconds` ago that is still unused.
 */
async function issuePaymentLink(context: WidgetContext, charge: ChargeRow): Promise<PaymentPageView['payment']> {
  const issued = issueEphemeralToken(charge.deadline)
  if (!(await chargeQueries.showPaymentLink(context.db.pool, charge.id, issued.hash, issued.expiresAt, context.linkIntervalSeconds * 1000))) return undefined
  return paymentLinkView(`${widgetUrlOf(context.publicUrl(), charge.id)}?t=${issued.token}`, issued.expiresAt)
}

/** A payment link with its QR code, as a page shows it (charges and refunds alike). */
export async function paymentLinkView(link: string, tokenExpiresAt: Date): Promise<NonNullable<PaymentPageView['payment']>> {
  const modules = QRCode.create(link, QR).modules.size
  return { link, qrDataUrl: await QRCode.toDataURL(link, QR), qrSize: (modules + 2 * QR.margin) * QR.scale, tokenExpiresAt }
}

/** The charge's status now and after every change, each change once and in order. */
const streamStatus = (context: WidgetContext, { req, res, params: [id] }: RouteRequest) =>
  context.live.serve(req, res, id!, async () => {
    const charge = await findChargeById(context.db.pool, id!)
    return charge && liveStatus(charge)
  })
