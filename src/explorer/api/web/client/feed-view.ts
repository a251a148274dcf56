/**
 * The home view: the newest settlements, live (follow-newest.ts), with a pause button, and the totals per
 * token below, redrawn as settlements arrive.
 */
import { el } from './dom.js'
import { followNewest } from './follow-newest.js'
import { LiveTable } from './live-table.js'
import { settlementTable } from './settlement-row.js'
import { tokenTotals } from './token-totals.js'

/** Rows kept on screen; at 200 settlements a second older ones leave within a second. */
export const FEED_ROWS = 100

export function feedView(root: HTMLElement): () => void {
  const { table, body } = settlementTable('Latest settlements, newest first')
  const status = el('span', { class: 'status', role: 'status' }, 'Connecting…')
  const pause = el('button', { type: 'button', 'aria-pressed': 'false', class: 'secondary' }, 'Pause')
  const waiting = el('span', { class: 'muted', 'aria-live': 'polite' })
  const live = new LiveTable(body, FEED_ROWS, (count) => (waiting.textContent = count > 0 ? `${count} new while paused` : ''))
  pause.addEventListener('click', () => {
    const paused = pause.getAttribute('aria-pressed') !== 'true'
    pause.setAttribute('aria-pressed', String(paused))
    pause.textContent = paused ? 'Resume' : 'Pause'
    live.setPaused(paused)
  })
  const filter = el('a', { href: '#/events', class: 'filter-link' }, 'Filter and page through all')
  root.append(el('div', { class: 'bar' }, el('h1', {}, 'Latest settlements'), status, pause, waiting, filter), el('div', { class: 'table-wrap' }, table))
  const empty = el('p', { class: 'muted' }, 'No settlements yet; new ones appear here as they are indexed.')
  const totals = tokenTotals()
  root.append(totals.section)
  const stop = followNewest({
    filter: {},
    table: live,
    pageSize: FEED_ROWS,
    state: (text) => (status.textContent = text),
    loaded: () => live.size === 0 && totals.section.before(empty),
    changed: () => {
      empty.remove()
      totals.refresh()
    },
  })
  return () => {
    totals.stop()
    stop()
  }
}
