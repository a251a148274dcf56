/**
 * One settlement with every field, as reached from a transaction hash or an order reference; hex values
 * whole, each with a copy button; payer and recipient link to their address views.
 */
import type { Settlement } from '../../../../wire/index.js'
import { el } from './dom.js'
import { settlementOfOrder, settlementOfTransaction } from './explorer-api.js'
import { amountText, timeText, utcText, ZERO_ID } from './format.js'
import { routeHref } from './routes.js'

function copyButton(value: string, what: string): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}` }, 'Copy')
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(value).then(
      () => (button.textContent = 'Copied'),
      () => (button.textContent = 'Copy failed'),
    )
  })
  return button
}

function details(s: Settlement): HTMLElement {
  const hex = (value: string, what: string, href?: string) => [href ? el('a', { href, class: 'mono' }, value) : el('span', { class: 'mono' }, value), ' ', copyButton(value, what)]
  const rows: [string, (Node | string)[]][] = [
    ['Amount', [amountText(s.amount, s), el('span', { class: 'muted' }, ` (${s.amount} units)`)]],
    ['Fee', [amountText(s.fee, s), el('span', { class: 'muted' }, ` (${s.fee} units)`)]],
    ['Time', [el('time', { datetime: new Date(s.timestamp * 1000).toISOString(), title: utcText(s.timestamp) }, timeText(s.timestamp)), el('span', { class: 'muted' }, ` (${utcText(s.timestamp)})`)]],
    ['Payer', hex(s.payer, 'payer', routeHref({ view: 'address', address: s.payer }))],
    ['Recipient', hex(s.recipient, 'recipient', routeHref({ view: 'address', address: s.recipient }))],
    ['Token', [`${s.tokenSymbol} (${s.tokenDecimals} decimals) `, ...hex(s.token, 'token address')]],
    ['Order reference', hex(s.orderReference, 'order reference')],
    ['Acquirer', s.acquirerId === ZERO_ID ? ['none'] : hex(s.acquirerId, 'acquirer id')],
    ['Transaction', hex(s.txHash, 'transaction hash')],
    ['Block', [String(s.blockNumber)]],
    ['Log index', [String(s.logIndex)]],
    ['Domain separator', hex(s.domainSeparator, 'domain separator')],
  ]
  return el('dl', { class: 'fields' }, ...rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, ...value)]))
}

export function settlementView(root: HTMLElement, by: { txHash: string } | { orderReference: string }): () => void {
  const byTx = 'txHash' in by
  const value = byTx ? by.txHash : by.orderReference
  const heading = el('h1', {}, byTx ? 'Transaction' : 'Order reference', ' ', el('span', { class: 'mono heading-hex' }, value))
  const body = el('div', { 'aria-busy': 'true' }, el('p', { class: 'muted' }, 'Loading…'))
  root.append(heading, body)
  let gone = false
  const lookup = byTx ? settlementOfTransaction(by.txHash) : settlementOfOrder(by.orderReference)
  lookup.then(
    (settlement) => {
      if (gone) return
      body.replaceChildren(settlement ? details(settlement) : el('p', { class: 'notice' }, byTx ? 'No settlement in that transaction.' : 'No settlement carries that order reference.'))
      body.setAttribute('aria-busy', 'false')
    },
    (error: Error) => !gone && body.replaceChildren(el('p', { class: 'notice' }, error.message)),
  )
  return () => void (gone = true)
}
