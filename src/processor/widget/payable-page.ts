/**
 * The body every payable's payment page shares (PROCESSOR.md §5; a refund's, issue 23, is paid by the
 * merchant's wallet): who pays whom and how much, the live status, the QR code of the payment link with
 * the link itself as its text alternative, the details with the time left and the settlement. The
 * charge's page (`payment-page.ts`) and the refund's (`refund-page.ts`) fill in their own words.
 */
import { escapeHtml } from '../../platform/html/index.js'
import type { LiveStatus } from './live-status.js'

/** What a page load knows besides the payable itself. */
export interface PayablePageView {
  merchantName: string
  /** The paying settlement links to its page there. */
  explorerUrl: string
  /** The token's symbol and decimals from the contract's directory; absent if it left the directory. */
  token?: { symbol: string; decimals: number }
  /** While the payable awaits payment: the payment link, its QR code (a PNG data URL) and its token's end. */
  payment?: { link: string; qrDataUrl: string; qrSize: number; tokenExpiresAt: Date }
  /** A page showed a payment link less than this many seconds ago that still works there; this load shows none. */
  linkShownRecently?: number
}

interface PayableBody extends Pick<PayablePageView, 'merchantName' | 'explorerUrl' | 'payment' | 'linkShownRecently'> {
  /** 'Payment to', 'Refund from'. */
  intro: string
  amountHtml: string
  status: LiveStatus<string>
  /** The status awaiting payment, when the page script must be told it (it knows a charge's). */
  awaiting?: string
  deadline: Date
  closedNote: string
  qr: { heading: string; text: string }
  /** The payable's own details (`<dt>`/`<dd>` pairs), before the time left and the settlement. */
  details: string
}

/**
 * Why a load shows no QR code (issue 43): another screen or a link preview was shown one moments ago and
 * a new one would break it. Says how long, and the page script loads the page again by itself then.
 */
export const linkShownNote = (seconds: number) =>
  `<section class="qr card"><p id="link-shown" data-retry-seconds="${seconds}">No QR code here yet: a payment link for this request was shown less than ${seconds} seconds ago (on another screen, or to a link preview) and still works there, so this page does not replace it. A new one shows here by itself in ${seconds} seconds.</p></section>`

export function payableBody({ intro, merchantName, amountHtml, status, awaiting, deadline, explorerUrl, payment, linkShownRecently, closedNote, qr, details }: PayableBody): string {
  const time = deadline.toISOString()
  const qrSection = payment
    ? `<section class="qr card" aria-labelledby="qr-heading">
  <h2 id="qr-heading">${escapeHtml(qr.heading)}</h2>
  <img src="${payment.qrDataUrl}" width="${payment.qrSize}" height="${payment.qrSize}" alt="${escapeHtml(payment.link)}">
  <p>${qr.text}<br><a class="mono" id="payment-link" href="${escapeHtml(payment.link)}">${escapeHtml(payment.link)}</a></p>
</section>`
    : linkShownRecently
      ? linkShownNote(linkShownRecently)
      : ''
  return `<main id="payment" data-status="${status.status}"${awaiting ? ` data-awaiting="${awaiting}"` : ''} data-deadline="${time}" data-explorer="${escapeHtml(explorerUrl)}"${payment ? ` data-token-expires="${payment.tokenExpiresAt.toISOString()}"` : ''}>
<p class="muted">${escapeHtml(intro)}</p>
<h1 id="merchant">${escapeHtml(merchantName)}</h1>
<p class="amount" id="amount">${amountHtml}</p>
<p><span id="status" class="status" role="status" aria-live="polite" data-status="${status.status}">${escapeHtml(status.label)}</span></p>
${closedNote}
${qrSection}
<section class="card" aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
${details}
<dt>Time left</dt><dd><time id="countdown" datetime="${time}">until ${escapeHtml(time.replace('T', ' ').slice(0, 19))} UTC</time></dd>
<dt>Settlement</dt><dd id="settlement" class="mono">${status.txHash ? `<a href="${escapeHtml(`${explorerUrl}/#/tx/${status.txHash}`)}">${status.txHash}</a>` : 'none yet'}</dd>
</dl>
</section>
</main>`
}
