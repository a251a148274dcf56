/**
 * Settlements by filters — token, payer, recipient, acquirer, amount range, date range — one keyset page
 * at a time, and the whole result as a CSV file (`/events/export`). The filters and the page's cursor
 * live in the URL (`#/events?…`), so a view can be bookmarked, shared and reloaded, and Back returns to
 * the previous page. Dates are days in the viewer's zone. Amounts are typed in token units and kept in
 * the URL as the API takes them (`minAmount`, `maxAmount`: the smallest unit), so a link is exact; the
 * token's decimals convert them, or, with no token chosen, the decimals every token shares.
 */
import { el } from './dom.js'
import { eventsPage, stats } from './explorer-api.js'
import { routeHref } from './routes.js'
import { smallestUnits, tokenUnits } from './format.js'
import type { Stats } from '../../../../wire/index.js'
import { settlementRow, settlementTable } from './settlement-row.js'
import { filterStats } from './filter-stats.js'

const PAGE = '25'

/** Form fields and the `/events` parameters they set. */
const TEXT_FIELDS = [
  { name: 'payer', label: 'Payer', placeholder: '0x + 40 hex' },
  { name: 'recipient', label: 'Recipient', placeholder: '0x + 40 hex' },
  { name: 'acquirerId', label: 'Acquirer id', placeholder: '0x + 32 hex' },
] as const

const dayStart = (day: string) => String(Math.floor(new Date(`${day}T00:00:00`).getTime() / 1000))
const dayEnd = (day: string) => String(Math.floor(new Date(`${day}T23:59:59`).getTime() / 1000))

/** The `/events` query for the view's URL parameters (`from` and `to` are days). */
export function eventsQuery(params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams({ limit: PAGE })
  for (const name of ['token', 'payer', 'recipient', 'acquirerId', 'minAmount', 'maxAmount', 'cursor']) {
    const value = params.get(name)
    if (value) query.set(name, value.trim())
  }
  const from = params.get('from')
  const to = params.get('to')
  if (from) query.set('fromTimestamp', dayStart(from))
  if (to) query.set('toTimestamp', dayEnd(to))
  return query
}

/** The file of every settlement the view's filters match: its `/events` query without page, as CSV. */
export function exportHref(params: URLSearchParams): string {
  const query = eventsQuery(params)
  query.delete('limit')
  query.delete('cursor')
  query.set('format', 'csv')
  return `/events/export?${query}`
}

const AMOUNT_FIELDS = [
  { name: 'minAmount', label: 'Min amount' },
  { name: 'maxAmount', label: 'Max amount' },
] as const

/** The decimals amounts are typed in: the chosen token's, else the one all tokens share, else none. */
function decimalsFor(figures: Stats | undefined, token: string): number | undefined {
  if (!figures) return undefined
  const tokens = Object.entries(figures.byToken)
  if (token) return tokens.find(([address]) => address === token.toLowerCase())?.[1].decimals
  const all = new Set(tokens.map(([, t]) => t.decimals))
  return all.size === 1 ? [...all][0] : undefined
}

/** `onRejected` is told when the form refuses what was typed: the results below no longer match the form. */
function filterForm(params: URLSearchParams, onRejected: () => void): HTMLFormElement {
  const field = (name: string, label: string, input: HTMLElement) => el('div', { class: 'field' }, el('label', { for: `filter-${name}` }, label), input)
  const token = el('select', { id: 'filter-token', name: 'token' }, el('option', { value: '' }, 'Any token'))
  const chosen = params.get('token') ?? ''
  const amounts = AMOUNT_FIELDS.map(({ name }) => el('input', { id: `filter-${name}`, name, inputmode: 'decimal', placeholder: 'in token units', autocomplete: 'off' }) as HTMLInputElement)
  const problem = el('p', { class: 'form-problem', id: 'filter-problem', role: 'alert' })
  let figures: Stats | undefined
  stats().then(
    (loaded) => {
      figures = loaded
      for (const [address, { symbol }] of Object.entries(loaded.byToken)) {
        const option = el('option', { value: address }, `${symbol} (${address.slice(0, 8)}…)`)
        option.selected = address === chosen.toLowerCase()
        token.append(option)
      }
      // The URL holds the smallest unit; the inputs show token units once the decimals are known.
      const decimals = decimalsFor(loaded, chosen)
      for (const input of amounts) {
        const units = params.get(input.name)
        if (units) input.value = decimals === undefined ? units : tokenUnits(units, decimals)
      }
    },
    () => {},
  )
  const form = el(
    'form',
    { class: 'filters', id: 'filters' },
    field('token', 'Token', token),
    ...TEXT_FIELDS.map(({ name, label, placeholder }) => field(name, label, el('input', { id: `filter-${name}`, name, value: params.get(name) ?? '', placeholder, spellcheck: 'false', class: 'mono' }))),
    ...AMOUNT_FIELDS.map(({ name, label }, i) => field(name, label, amounts[i]!)),
    field('from', 'From day', el('input', { id: 'filter-from', name: 'from', type: 'date', value: params.get('from') ?? '' })),
    field('to', 'To day', el('input', { id: 'filter-to', name: 'to', type: 'date', value: params.get('to') ?? '' })),
    el('div', { class: 'field actions' }, el('button', { type: 'submit' }, 'Apply'), el('a', { href: '#/events' }, 'Clear')),
    problem,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') next.set(name, value.trim())
    problem.textContent = ''
    const reject = (text: string) => {
      problem.textContent = text
      onRejected()
    }
    for (const { name, label } of AMOUNT_FIELDS) {
      const typed = next.get(name)
      if (typed === null) continue
      const decimals = decimalsFor(figures, next.get('token') ?? '')
      if (decimals === undefined) return reject(`${label}: choose a token (its decimals say what the amount means)`)
      const units = smallestUnits(typed, decimals)
      if (units === undefined) return reject(`${label}: "${typed}" is not an amount in token units with at most ${decimals} decimals`)
      next.set(name, units)
    }
    location.hash = routeHref({ view: 'events', params: next })
  })
  return form
}

/**
 * The results follow the URL's filters. A rejected form empties them (they would show the previous
 * filters' answer under the new ones), and a query the API refuses is said once, in the summary: the
 * totals and chart are only drawn for a query the API took.
 */
export function filterView(root: HTMLElement, params: URLSearchParams): () => void {
  const { table, body } = settlementTable('Settlements matching the filters, newest first')
  const summary = el('p', { class: 'totals', 'aria-live': 'polite' }, 'Loading…')
  const paging = el('nav', { class: 'paging', 'aria-label': 'Pages' })
  let gone = false
  let stale = false
  let totals: HTMLElement | undefined
  const rejected = () => {
    stale = true
    body.replaceChildren()
    paging.replaceChildren()
    totals?.remove()
    summary.textContent = 'No results shown: correct the filters above, then press Apply'
    summary.dataset.stale = 'yes'
  }
  root.append(el('h1', {}, 'Settlements by filter'), filterForm(params, rejected), summary, el('div', { class: 'table-wrap' }, table), paging)
  eventsPage(eventsQuery(params)).then(
    (page) => {
      if (gone || stale) return
      body.append(...page.events.map(settlementRow))
      summary.textContent = `${page.total.toLocaleString('en-US')} settlement${page.total === 1 ? '' : 's'} match${page.total === 1 ? 'es' : ''}`
      if (page.total > 0) summary.append(' · ', el('a', { href: exportHref(params), download: '', id: 'export-csv' }, 'Download CSV'))
      const withCursor = (cursor: string | null) => {
        const next = new URLSearchParams(params)
        if (cursor === null) next.delete('cursor')
        else next.set('cursor', cursor)
        return routeHref({ view: 'events', params: next })
      }
      if (params.has('cursor')) paging.append(el('a', { href: withCursor(null) }, 'First page'))
      if (page.nextCursor) paging.append(el('a', { href: withCursor(page.nextCursor), rel: 'next' }, 'Next page'))
      totals = filterStats(eventsQuery(params), () => gone || stale)
      root.append(totals)
    },
    (error: Error) => !gone && !stale && (summary.textContent = error.message),
  )
  return () => void (gone = true)
}
