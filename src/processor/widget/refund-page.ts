/**
 * A refund's payment page (issue 23), for the merchant's wallet: what it pays back and to whom, the
 * base fee it pays on top, the QR code of the refund's payment link while it awaits a signature, and the
 * live status (the payment page's own script, told the awaiting status by `data-awaiting`).
 */
import type { RefundRow } from '../db/index.js'
import { escapeHtml, type HtmlPage } from '../../platform/html/index.js'
import { displayAmount } from '../../wire/index.js'
import { pageScript } from './page-script.js'
import { isClosed, refundLiveStatus } from './live-status.js'
import { payableBody, type PayablePageView } from './payable-page.js'

export interface RefundPageView extends PayablePageView {
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
  const body = payableBody({
    intro: 'Refund from',
    merchantName,
    amountHtml: escapeHtml(amount(refund.totalToPay)),
    status: refundLiveStatus(refund),
    awaiting: 'awaiting-signature',
    deadline: refund.deadline,
    explorerUrl,
    payment,
    linkShownRecently,
    closedNote: isClosed(refund.status) ? `<p class="closed">This refund request is ${refund.status}: it can no longer be paid.</p>` : '',
    qr: {
      heading: 'Scan with the merchant’s wallet',
      text: `or open the refund’s payment link in the wallet of <span class="mono">${escapeHtml(refund.payer)}</span>:`,
    },
    details: `<dt>Order</dt><dd id="order-id">${escapeHtml(refund.orderId)}</dd>
<dt>Customer receives</dt><dd>${escapeHtml(amount(refund.amount))}</dd>
<dt>To</dt><dd class="mono">${escapeHtml(refund.recipient)}</dd>
<dt>Fees (paid by the merchant)</dt><dd>${escapeHtml(amount(refund.fees))}</dd>
${refund.reason ? `<dt>Reason</dt><dd>${escapeHtml(refund.reason)}</dd>` : ''}`,
  })
  return { title: `Refund from ${merchantName}`, body, style, script: isClosed(refund.status) ? undefined : pageScript }
}
