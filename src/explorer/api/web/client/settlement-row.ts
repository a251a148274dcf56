/**
 * One settlement as a table row: time, amount, payer → recipient, order reference, acquirer, fee. Each
 * cell names its column (`data-label`) for the phone layout, where rows become cards.
 */
import type { Settlement } from '../../../../wire/index.js'
import { el } from './dom.js'
import { amountText, settlementKey, shortHex, timeText, utcText, ZERO_ID } from './format.js'
import { routeHref } from './routes.js'

export const COLUMNS = ['Time', 'Amount', 'Payer → recipient', 'Order reference', 'Acquirer', 'Fee'] as const

const hexLink = (href: string, hex: string, label: string) => el('a', { href, class: 'mono', title: hex, 'aria-label': `${label} ${hex}` }, shortHex(hex))

export function settlementRow(s: Settlement): HTMLTableRowElement {
  const cell = (label: (typeof COLUMNS)[number], ...children: (Node | string)[]) => el('td', { 'data-label': label }, ...children)
  const row = el(
    'tr',
    { 'data-key': settlementKey(s), 'data-tx': s.txHash },
    cell('Time', el('a', { href: routeHref({ view: 'tx', txHash: s.txHash }), title: utcText(s.timestamp) }, timeText(s.timestamp))),
    cell('Amount', el('span', { class: 'amount' }, amountText(s.amount, s))),
    cell(
      'Payer → recipient',
      el('span', { class: 'parties' }, hexLink(routeHref({ view: 'address', address: s.payer }), s.payer, 'payer'), el('span', { 'aria-hidden': 'true' }, ' → '), hexLink(routeHref({ view: 'address', address: s.recipient }), s.recipient, 'recipient')),
    ),
    cell('Order reference', hexLink(routeHref({ view: 'order', orderReference: s.orderReference }), s.orderReference, 'order reference')),
    cell('Acquirer', s.acquirerId === ZERO_ID ? el('span', { class: 'muted' }, 'none') : el('span', { class: 'mono', title: s.acquirerId }, shortHex(s.acquirerId))),
    cell('Fee', el('span', { class: 'amount' }, amountText(s.fee, s))),
  )
  return row
}

export function settlementTable(caption: string): { table: HTMLTableElement; body: HTMLTableSectionElement } {
  const body = el('tbody')
  const table = el('table', { class: 'settlements' }, el('caption', { class: 'visually-hidden' }, caption), el('thead', {}, el('tr', {}, ...COLUMNS.map((c) => el('th', { scope: 'col' }, c)))), body)
  return { table, body }
}

/** Marks a row a reorg took back: struck out, and said so to screen readers. */
export function strikeRow(row: HTMLTableRowElement): void {
  row.classList.add('removed')
  row.title = 'Removed by a chain reorganisation'
  const first = row.cells[0]
  if (first && !first.querySelector('.removed-note')) first.append(el('span', { class: 'removed-note' }, ' (removed by a reorg)'))
}
