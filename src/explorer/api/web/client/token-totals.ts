/**
 * Totals per token from `/stats` (kept by the explorer while indexing): settlements, volume and fees, and
 * the last 24 hours, in token units. Tokens are told apart by address, as two may share a symbol.
 */
import type { Stats } from '../../../../wire/index.js'
import { el } from './dom.js'
import { stats } from './explorer-api.js'
import { amountText, shortHex } from './format.js'

/** Rows sit right in the table (valid HTML), so `tbody` stays the settlements' own on every view. */
export function totalsTable(figures: Stats): HTMLTableElement {
  const header = ['Token', 'Settlements', 'Volume', 'Fees', 'Last 24 h', 'Volume 24 h']
  const rows = Object.entries(figures.byToken).map(([address, t]) => {
    const units = { tokenSymbol: t.symbol, tokenDecimals: t.decimals }
    const cells = [
      el('span', { title: address }, `${t.symbol} `, el('span', { class: 'mono muted' }, shortHex(address))),
      t.settlements.toLocaleString('en-US'),
      amountText(t.volume, units),
      amountText(t.fees, units),
      t.last24h.settlements.toLocaleString('en-US'),
      amountText(t.last24h.volume, units),
    ]
    return el('tr', { 'data-token': address }, ...cells.map((cell, i) => el('td', { 'data-label': header[i]! }, cell)))
  })
  return el('table', { class: 'settlements totals-table' }, el('caption', { class: 'visually-hidden' }, 'Totals per token'), el('thead', {}, el('tr', {}, ...header.map((h) => el('th', { scope: 'col' }, h)))), ...rows)
}

/** A section that shows the totals and redraws them on `refresh()`, at most once a second. */
export function tokenTotals(): { section: HTMLElement; refresh(): void; stop(): void } {
  const holder = el('div', { class: 'table-wrap' })
  const section = el('section', { class: 'token-totals', 'aria-label': 'Totals per token' }, el('h2', {}, 'Totals per token'), holder)
  let timer: ReturnType<typeof setTimeout> | undefined
  const draw = () =>
    stats().then(
      (figures) => holder.replaceChildren(totalsTable(figures)),
      () => {},
    )
  void draw()
  return {
    section,
    refresh() {
      timer ??= setTimeout(() => {
        timer = undefined
        void draw()
      }, 1000)
    },
    stop: () => clearTimeout(timer),
  }
}
