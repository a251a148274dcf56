/**
 * An address's settlements as payer or recipient (the `address` filter), newest first with older pages
 * on demand, live while open (follow-newest.ts), and its totals: exact counts from the explorer's `total`,
 * and below the table its figures per token and settlements per day (filter-stats.ts, `address` filter).
 */
import { el } from './dom.js'
import { eventsPage } from './explorer-api.js'
import { filterStats } from './filter-stats.js'
import { followNewest } from './follow-newest.js'
import { LiveTable } from './live-table.js'
import { settlementTable } from './settlement-row.js'

const PAGE = 25
const KEPT_ROWS = 1000

export function addressView(root: HTMLElement, address: string): () => void {
  const { table, body } = settlementTable(`Settlements of ${address}, newest first`)
  const status = el('span', { class: 'status', role: 'status' }, 'Connecting…')
  const totals = el('p', { class: 'totals', 'aria-live': 'polite' }, 'Counting…')
  const older = el('button', { type: 'button', class: 'secondary', hidden: '' }, 'Older settlements')
  const live = new LiveTable(body, KEPT_ROWS)
  let gone = false
  root.append(el('h1', {}, 'Address ', el('span', { class: 'mono heading-hex' }, address)), totals, el('div', { class: 'bar' }, status), el('div', { class: 'table-wrap' }, table), older, filterStats(new URLSearchParams({ address }), () => gone, 'Totals of this address'))

  const fail = (error: Error) => (status.textContent = error.message)
  let cursor: string | null = null
  const showMore = (next: string | null) => {
    cursor = next
    older.hidden = cursor === null
  }
  older.addEventListener('click', () => {
    if (cursor) eventsPage({ address, limit: String(PAGE), cursor }).then((page) => (live.append(page.events), showMore(page.nextCursor)), fail)
  })
  const count = async () => {
    const [all, asPayer, asRecipient] = await Promise.all([eventsPage({ address, limit: '1' }), eventsPage({ payer: address, limit: '1' }), eventsPage({ recipient: address, limit: '1' })])
    const plural = (n: number) => `${n.toLocaleString('en-US')} settlement${n === 1 ? '' : 's'}`
    totals.textContent = `${plural(all.total)}: ${asPayer.total.toLocaleString('en-US')} as payer, ${asRecipient.total.toLocaleString('en-US')} as recipient`
  }
  // Counts follow live changes at most once a second, however busy the address.
  let recounting: ReturnType<typeof setTimeout> | undefined
  const recount = () => {
    recounting ??= setTimeout(() => {
      recounting = undefined
      count().catch(fail)
    }, 1000)
  }
  const stop = followNewest({
    filter: { address },
    table: live,
    pageSize: PAGE,
    state: (text) => (status.textContent = text),
    loaded: (page) => {
      showMore(page.nextCursor)
      count().catch(fail)
    },
    changed: recount,
  })
  return () => {
    gone = true
    clearTimeout(recounting)
    stop()
  }
}
