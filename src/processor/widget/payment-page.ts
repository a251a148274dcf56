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

export interface PaymentPageView {
  charge: ChargeRow
  merchantName: string
  /** The paying settlement links to its page there. */
  explorerUrl: string
  /** The token's symbol and decimals from the contract's directory; absent if it left the directory. */
  token?: { symbol: string; decimals: number }
  /** While the charge awaits payment: the payment link, its QR code (a PNG data URL) and its token's end. */
  payment?: { link: string; qrDataUrl: string; qrSize: number; tokenExpiresAt: Date }
  /** A page showed a payment link less than this many seconds ago that still works there; this load shows none. */
  linkShownRecently?: number
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

/**
 * Why a load shows no QR code (issue 43): another screen or a link preview was shown one moments ago and
 * a new one would break it. Says how long, and the page script loads the page again by itself then.
 */
export const linkShownNote = (seconds: number) =>
  `<section class="qr card"><p id="link-shown" data-retry-seconds="${seconds}">No QR code here yet: a payment link for this request was shown less than ${seconds} seconds ago (on another screen, or to a link preview) and still works there, so this page does not replace it. A new one shows here by itself in ${seconds} seconds.</p></section>`

export function paymentPage({ charge, merchantName, explorerUrl, token, payment, linkShownRecently }: PaymentPageView): HtmlPage {
  const amount = (units: string) => (token ? `${displayAmount(units, token.decimals)} ${token.symbol}` : `${units} (smallest units of ${charge.currency})`)
  const status = liveStatus(charge)
  const deadline = charge.deadline.toISOString()
  const closedNote = isClosed(charge.status)
    ? `<p class="closed">${charge.status === 'expired' ? 'This payment request has expired' : 'The merchant canceled this payment request'}: it can no longer be paid. Nothing was charged.</p>`
    : ''
  const qr = payment
    ? `<section class="qr card" aria-labelledby="qr-heading">
  <h2 id="qr-heading">Scan with your wallet</h2>
  <img src="${payment.qrDataUrl}" width="${payment.qrSize}" height="${payment.qrSize}" alt="${escapeHtml(payment.link)}">
  <p>or open the payment link in your wallet:<br><a class="mono" id="payment-link" href="${escapeHtml(payment.link)}">${escapeHtml(payment.link)}</a></p>
</section>`
    : linkShownRecently
      ? linkShownNote(linkShownRecently)
      : ''
  const body = `<main id="payment" data-status="${status.status}" data-deadline="${deadline}" data-explorer="${escapeHtml(explorerUrl)}"${payment ? ` data-token-expires="${payment.tokenExpiresAt.toISOString()}"` : ''}>
<p class="muted">Payment to</p>
<h1 id="merchant">${escapeHtml(merchantName)}</h1>
<p class="amount" id="amount">${amountHtml(charge.totalToPay, token, charge.currency)}</p>
<p><span id="status" class="status" role="status" aria-live="polite" data-status="${status.status}">${escapeHtml(status.label)}</span></p>
${closedNote}
${qr}
<section class="card" aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
<dt>Order</dt><dd id="order-id">${escapeHtml(charge.orderId)}</dd>
<dt>Merchant receives</dt><dd>${escapeHtml(amount(charge.amount))}</dd>
<dt>Fees</dt><dd>${escapeHtml(amount(charge.fees))}</dd>
<dt>Time left</dt><dd><time id="countdown" datetime="${deadline}">until ${escapeHtml(deadline.replace('T', ' ').slice(0, 19))} UTC</time></dd>
<dt>Settlement</dt><dd id="settlement" class="mono">${status.txHash ? `<a href="${escapeHtml(`${explorerUrl}/#/tx/${status.txHash}`)}">${status.txHash}</a>` : 'none yet'}</dd>
</dl>
</section>
</main>`
  return { title: `Pay ${merchantName}`, body, style, script: isClosed(charge.status) ? undefined : pageScript }
}

function amountHtml(units: string, token: PaymentPageView['token'], currency: string): string {
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
