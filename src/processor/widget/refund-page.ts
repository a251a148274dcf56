/**
 * A refund's payment page (issue 23), for the merchant's wallet: what it pays back and to whom, the
 * base fee it pays on top, the QR code of the refund's payment link while it awaits a signature, and the
 * live status (the payment page's own script, told the awaiting status by `data-awaiting`).
 */
import type { RefundRow, RefundStatus } from '../db/index.js'
import { escapeHtml, type HtmlPage } from '../../platform/html/index.js'
import { displayAmount } from '../../wire/index.js'
import { pageScript } from './page-script.js'
import { linkShownNote, type PaymentPageView } from './payment-page.js'

export interface RefundLiveStatus {
  status: RefundStatus
  label: string
  txHash: string | null
  confirmations: number | null
}

const labels: Record<RefundStatus, string> = {
  'awaiting-signature': 'Waiting for the merchant’s wallet',
  confirming: 'Refund sent, confirming',
  settled: 'Refunded',
  expired: 'Expired',
  canceled: 'Canceled',
}

export const refundLiveStatus = (refund: RefundRow): RefundLiveStatus => ({
  status: refund.status,
  label: labels[refund.status],
  txHash: refund.settlement?.txHash ?? null,
  confirmations: refund.settlement?.confirmations ?? null,
})

export const isRefundClosed = (status: RefundStatus) => status === 'expired' || status === 'canceled'

export interface RefundPageView extends Pick<PaymentPageView, 'merchantName' | 'explorerUrl' | 'token' | 'payment' | 'linkShownRecently'> {
  refund: RefundRow
}

const style = `
.amount { font-size: 2.25rem; font-weight: 700; line-height: 1.1; margin: .25rem 0 .75rem }
.qr { text-align: center }
.qr img { display: block; margin: .5rem auto; max-width: 100%; height: auto; image-rendering: pixelated }
main:not([data-status="awaiting-signature"]) .qr { display: none }
`

export function refundPage({ refund, merchantName, explorerUrl, token, payment, linkShownRecently }: RefundPageView): HtmlPage {
  const amount = (units: string) => (token ? `${displayAmount(units, token.decimals)} ${token.symbol}` : `${units} (smallest units of ${refund.currency})`)
  const status = refundLiveStatus(refund)
  const deadline = refund.deadline.toISOString()
  const qr = payment
    ? `<section class="qr card" aria-labelledby="qr-heading">
  <h2 id="qr-heading">Scan with the merchant’s wallet</h2>
  <img src="${payment.qrDataUrl}" width="${payment.qrSize}" height="${payment.qrSize}" alt="${escapeHtml(payment.link)}">
  <p>or open the refund’s payment link in the wallet of <span class="mono">${escapeHtml(refund.payer)}</span>:<br><a class="mono" id="payment-link" href="${escapeHtml(payment.link)}">${escapeHtml(payment.link)}</a></p>
</section>`
    : linkShownRecently
      ? linkShownNote(linkShownRecently)
      : ''
  const body = `<main id="payment" data-status="${status.status}" data-awaiting="awaiting-signature" data-deadline="${deadline}" data-explorer="${escapeHtml(explorerUrl)}"${payment ? ` data-token-expires="${payment.tokenExpiresAt.toISOString()}"` : ''}>
<p class="muted">Refund from</p>
<h1 id="merchant">${escapeHtml(merchantName)}</h1>
<p class="amount" id="amount">${escapeHtml(amount(refund.totalToPay))}</p>
<p><span id="status" class="status" role="status" aria-live="polite" data-status="${status.status}">${escapeHtml(status.label)}</span></p>
${isRefundClosed(refund.status) ? `<p class="closed">This refund request is ${refund.status}: it can no longer be paid.</p>` : ''}
${qr}
<section class="card" aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
<dt>Order</dt><dd id="order-id">${escapeHtml(refund.orderId)}</dd>
<dt>Customer receives</dt><dd>${escapeHtml(amount(refund.amount))}</dd>
<dt>To</dt><dd class="mono">${escapeHtml(refund.recipient)}</dd>
<dt>Fees (paid by the merchant)</dt><dd>${escapeHtml(amount(refund.fees))}</dd>
${refund.reason ? `<dt>Reason</dt><dd>${escapeHtml(refund.reason)}</dd>` : ''}
<dt>Time left</dt><dd><time id="countdown" datetime="${deadline}">until ${escapeHtml(deadline.replace('T', ' ').slice(0, 19))} UTC</time></dd>
<dt>Settlement</dt><dd id="settlement" class="mono">${status.txHash ? `<a href="${escapeHtml(`${explorerUrl}/#/tx/${status.txHash}`)}">${status.txHash}</a>` : 'none yet'}</dd>
</dl>
</section>
</main>`
  return { title: `Refund from ${merchantName}`, body, style, script: isRefundClosed(refund.status) ? undefined : pageScript }
}
