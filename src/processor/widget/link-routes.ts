/**
 * The payment links' public routes on the widget (issue 23). `GET /l/:id` shows the link and creates
 * nothing, so a crawler, a link preview or a flood of loads costs a read; `POST /l/:id` (the page's "Pay"
 * button) makes the payer's own charge and answers 303 to its payment page. A charge costs a fee lookup
 * on the node and a row, so creation is bounded twice, both before the node is asked: per client address
 * (requestAddress: behind TRUSTED_PROXIES the forwarded one, IPv6 by /64) by a token bucket
 * (PAYMENT_LINK_CHARGE_BURST, then PAYMENT_LINK_CHARGES_PER_MINUTE; 429 with Retry-After), and per link by PAYMENT_LINK_MAX_OPEN_CHARGES held charges (503 with
 * Retry-After), which holds against many addresses too. An unpaid charge holds one of the link's uses for
 * PAYMENT_LINK_HOLD_SECONDS only (issue 38 item 6): while holds fill a link it answers 503 `busy`, never
 * `used-up`, and Retry-After says when the first hold ends.
 */
import type { Hex } from 'viem'
import type { PaymentLinkLimits } from '../../config/index.js'
import type { DirectoryToken } from '../../chain/index.js'
import { chargeFromPaymentLink, linkRefusal, type ChargeTerms } from '../checkout/index.js'
import { findMerchant, findPaymentLinkById, type Database, type PaymentLinkRow } from '../db/index.js'
import { redirect, requestAddress, sendHtmlPage } from '../../platform/http/index.js'
import { ignoringBody, withTrailingSlash, type Route, type RouteRequest } from '../../platform/route-server/index.js'
import { BucketsPerAddress } from '../../platform/limits/index.js'
import { linkPage, missingLinkPage, type LinkPageNote } from './link-page.js'

export interface LinkRoutesContext {
  db: Database
  terms: ChargeTerms
  limits: PaymentLinkLimits
}

const LINK = ':id(^pl_[0-9a-f]{24}$)'
const UNPRICED_RETRY_SECONDS = 60

export function linkRoutes({ db, terms, limits }: LinkRoutesContext): Route[] {
  const perAddress = new BucketsPerAddress({ perSecond: limits.chargesPerMinutePerAddress / 60, burst: limits.chargeBurstPerAddress })
  const show = async ({ res }: RouteRequest, link: PaymentLinkRow, status: number, note?: LinkPageNote, headers: Record<string, string> = {}) => {
    const merchant = await findMerchant(db.pool, link.merchantId)
    const token: DirectoryToken | undefined = terms.token(link.token.toLowerCase() as Hex)
    sendHtmlPage(res, status, linkPage(link, merchant?.name ?? link.merchantId, token, note), { 'cache-control': 'no-store', ...headers })
  }
  return [
    ...withTrailingSlash({
      method: 'GET',
      url: `/l/${LINK}`,
      async handle(request) {
        const link = await findPaymentLinkById(db.pool, request.params[0]!)
        if (!link) return sendHtmlPage(request.res, 404, missingLinkPage(request.params[0]!))
        const refused = linkRefusal(link, limits.maxOpenChargesPerLink)
        await show(request, link, refused === undefined || refused === 'busy' ? 200 : 410, refused)
      },
    }),
    ...withTrailingSlash(ignoringBody({
      method: 'POST',
      url: `/l/${LINK}`,
      async handle(request) {
        const id = request.params[0]!
        if (!perAddress.take(requestAddress(request.req, limits.trustedProxies), Date.now())) {
          const link = await findPaymentLinkById(db.pool, id)
          if (!link) return sendHtmlPage(request.res, 404, missingLinkPage(id))
          return show(request, link, 429, 'slow-down', { 'retry-after': String(perAddress.retryAfterSeconds()) })
        }
        const settings = { chargeTtlSeconds: limits.chargeTtlSeconds, maxOpenCharges: limits.maxOpenChargesPerLink, holdSeconds: limits.holdSeconds }
        const outcome = await chargeFromPaymentLink(db, terms, id, settings)
        if (!outcome) return sendHtmlPage(request.res, 404, missingLinkPage(id))
        if ('charge' in outcome) return redirect(request.res, `/s/${outcome.charge.id}`)
        const { refused, link } = outcome
        if (refused === 'busy') return show(request, link, 503, refused, { 'retry-after': String(secondsUntil(link.nextHoldEndsAt, limits.holdSeconds)) })
        if (refused === 'unpriced') return show(request, link, 503, refused, { 'retry-after': String(UNPRICED_RETRY_SECONDS) })
        await show(request, link, 410, refused)
      },
    })),
  ]
}

/** Whole seconds until `end` (at least 1); `fallback` without one. */
const secondsUntil = (end: Date | null, fallback: number) => (end ? Math.max(1, Math.ceil((end.getTime() - Date.now()) / 1000)) : fallback)
