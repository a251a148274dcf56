/**
 * The payment page (PROCESSOR.md §5) as HTML: who is paid, how much in the token's display units, the
 * order, the time left, the QR code of the payment link with the link itself as its text alternative,
 * and the status, which the inline script keeps live. Everything but the live parts reads without
 * JavaScript; the layout is one column that fits a 320 px screen.
 */
import type { ChargeRow } from '../db/index.js'
import { escapeHtml } from '../../platform/html/index.js'
import type { HtmlPage } from '../../platform/html/index.js'
import { displayAmount } from '../../wire/index.js'
import { isClosed, liveStatus } from './live-status.js'
import { pageScript } from './page-script.js'
import { payableBody, type PayablePageView } from './payable-page.js'

export interface PaymentPageView extends PayablePageView {
  charge: ChargeRow
}

const style = `
.amount { font-size: 2.25rem; font-weight: 700; line-height: 1.1; margin: .25rem 0 .75rem }
.amount .unit { font-size: 1.25rem; color: var(--muted) }
.qr { text-align: center }
.qr img { display: block; margin: .5rem auto; max-width: 100%; height: auto; image-rendering: pixelated }
.qr a { display: inline-block; margin-top: .25rem }
main:not([data-status="awaiting-payment"]) .qr { display: none }
.closed { font-weight: 600 }
`

export function paymentPage({ charge, merchantName, explorerUrl, token, payment, linkShownRecently }: PaymentPageView): HtmlPage {
  const amount = (units: string) => (token ? `${displayAmount(units, token.decimals)} ${token.symbol}` : `${units} (smallest units of ${charge.currency})`)
  const status = liveStatus(charge)
  const deadline = charge.deadline
  const closedNote = isClosed(charge.status)
    ? `<p class="closed">${charge.status === 'expired' ? 'This payment request has expired' : 'The merchant canceled this payment request'}: it can no longer be paid. Nothing was charged.</p>`
    : ''
  const body = payableBody({
    intro: 'Payment to',
    merchantName,
    amountHtml: amountHtml(charge.totalToPay, token, charge.currency),
    status,
    deadline,
    explorerUrl,
    payment,
    linkShownRecently,
    closedNote,
    qr: { heading: 'Scan with your wallet', text: 'or open the payment link in your wallet:' },
    details: `<dt>Order</dt><dd id="order-id">${escapeHtml(charge.orderId)}</dd>
<dt>Merchant receives</dt><dd>${escapeHtml(amount(charge.amount))}</dd>
<dt>Fees</dt><dd>${escapeHtml(amount(charge.fees))}</dd>`,
  })
  return { title: `Pay ${merchantName}`, body, style, script: isClosed(charge.status) ? undefined : pageScript }
}

function amountHtml(units: string, token: PayablePageView['token'], currency: string): string {
  if (!token) return `${escapeHtml(units)} <span class="unit">${escapeHtml(currency)} units</span>`
  return `${escapeHtml(displayAmount(units, token.decimals))} <span class="unit">${escapeHtml(token.symbol)}</span>`
}

/** `what`: the thing the link names (a payment link's page says "payment link"). */
export function missingChargePage(id: string, what = 'payment request'): HtmlPage {
  return {
    title: `${what[0]!.toUpperCase()}${what.slice(1)} not found`,
    body: `<main>
<h1>${what[0]!.toUpperCase()}${what.slice(1)} not found</h1>
<p>There is no ${what} <span class="mono">${escapeHtml(id)}</span>. Check the link you were given, or ask the merchant for a new one.</p>
</main>`,
  }
}
