/**
 * A payment link's public page (issue 23): who is paid, for what, how much, and one "Pay" button. Loading
 * it creates nothing (crawlers, link previews and prefetches load pages); pressing the button posts the
 * form, which makes the payer's own charge and sends them to its payment page. Readable without
 * JavaScript (there is none), one column at phone width.
 */
import type { DirectoryToken } from '../../chain/index.js'
import type { PaymentLinkRow } from '../db/index.js'
import type { PaymentLinkStatus } from '../checkout/index.js'
import { escapeHtml, type HtmlPage } from '../../platform/html/index.js'
import { displayAmount } from '../../wire/index.js'
import { missingChargePage } from './payment-page.js'

export type LinkPageNote = Exclude<PaymentLinkStatus, 'active'> | 'busy' | 'unpriced' | 'slow-down'

const notes: Record<LinkPageNote, string> = {
  'used-up': 'This payment link has been used as many times as the merchant allowed. Ask the merchant for a new one.',
  expired: 'This payment link has expired. Ask the merchant for a new one.',
  deactivated: 'The merchant turned this payment link off. Ask the merchant for a new one.',
  busy: 'Many payments from this link are in progress right now. Try again in a few minutes.',
  unpriced: 'This payment link cannot be paid right now (its token or the network is unavailable). Try again later.',
  'slow-down': 'Too many payment requests from your network in a short time. Wait a moment, then press the button again.',
}

const style = `
.amount { font-size: 2.25rem; font-weight: 700; line-height: 1.1; margin: .25rem 0 .25rem }
.amount .unit { font-size: 1.25rem; color: var(--muted) }
form { margin: 1rem 0 }
.note { font-weight: 600 }
`

export function linkPage(link: PaymentLinkRow, merchantName: string, token: Pick<DirectoryToken, 'symbol' | 'decimals'> | undefined, note?: LinkPageNote): HtmlPage {
  const amount = token ? `${escapeHtml(displayAmount(link.amount, token.decimals))} <span class="unit">${escapeHtml(token.symbol)}</span>` : `${escapeHtml(link.amount)} <span class="unit">${escapeHtml(link.currency)} units</span>`
  const payable = note === undefined || note === 'busy' || note === 'slow-down' || note === 'unpriced'
  const body = `<main id="payment-link" data-link="${escapeHtml(link.id)}">
<p class="muted">Payment to</p>
<h1 id="merchant">${escapeHtml(merchantName)}</h1>
<p id="description">${escapeHtml(link.description)}</p>
<p class="amount" id="amount">${amount}</p>
<p class="muted">plus the processor's fee, shown before you pay</p>
${note ? `<p class="note" id="link-note" role="status">${escapeHtml(notes[note])}</p>` : ''}
${payable ? `<form method="post" action="/l/${escapeHtml(link.id)}"><button type="submit" id="pay">Pay</button></form>\n<p class="muted">Each press starts a payment request of your own, valid for a limited time.</p>` : ''}
</main>`
  return { title: `Pay ${merchantName}`, body, style }
}

export const missingLinkPage = (id: string) => missingChargePage(id, 'payment link')
