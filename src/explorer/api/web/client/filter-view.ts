/**
 * Settlements by filters — token, payer, recipient, acquirer, date range — one keyset page at a time.
 * The filters and the page's cursor live in the URL (`#/events?…`), so a view can be bookmarked, shared
 * and reloaded, and Back returns to the previous page. Dates are days in the viewer's zone.
 */
import { el } from './dom.js'
import { eventsPage, stats } from './explorer-api.js'
import { routeHref } from './routes.js'
import { settlementRow, settlementTable } from './settlement-row.js'

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
  for (const name of ['token', 'payer', 'recipient', 'acquirerId', 'cursor']) {
    const value = params.get(name)
    if (value) query.set(name, value.trim())
  }
  const from = params.get('from')
  const to = params.get('to')
  if (from) query.set('fromTimestamp', dayStart(from))
  if (to) query.set('toTimestamp', dayEnd(to))
  return query
}

function filterForm(params: URLSearchParams): HTMLFormElement {
  const field = (name: string, label: string, input: HTMLElement) => el('div', { class: 'field' }, el('label', { for: `filter-${name}` }, label), input)
  const token = el('select', { id: 'filter-token', name: 'token' }, el('option', { value: '' }, 'Any token'))
  const chosen = params.get('token') ?? ''
  stats().then(
    (figures) => {
      for (const [address, { symbol }] of Object.entries(figures.byToken)) {
        const option = el('option', { value: address }, `${symbol} (${address.slice(0, 8)}…)`)
        option.selected = address === chosen.toLowerCase()
        token.append(option)
      }
    },
    () => {},
  )
  const form = el(
    'form',
    { class: 'filters', id: 'filters' },
    field('token', 'Token', token),
    ...TEXT_FIELDS.map(({ name, label, placeholder }) => field(name, label, el('input', { id: `filter-${name}`, name, value: params.get(name) ?? '', placeholder, spellcheck: 'false', class: 'mono' }))),
    field('from', 'From day', el('input', { id: 'filter-from', name: 'from', type: 'date', value: params.get('from') ?? '' })),
    field('to', 'To day', el('input', { id: 'filter-to', name: 'to', type: 'date', value: params.get('to') ?? '' })),
    el('div', { class: 'field actions' }, el('button', { type: 'submit' }, 'Apply'), el('a', { href: '#/events' }, 'Clear')),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') next.set(name, value.trim())
    location.hash = routeHref({ view: 'events', params: next })
  })
  return form
}

export function filterView(root: HTMLElement, params: URLSearchParams): () => void {
  const { table, body } = settlementTable('Settlements matching the filters, newest first')
  const summary = el('p', { class: 'totals', 'aria-live': 'polite' }, 'Loading…')
  const paging = el('nav', { class: 'paging', 'aria-label': 'Pages' })
  root.append(el('h1', {}, 'Settlements by filter'), filterForm(params), summary, el('div', { class: 'table-wrap' }, table), paging)
  let gone = false
  eventsPage(eventsQuery(params)).then(
    (page) => {
      if (gone) return
      body.append(...page.events.map(settlementRow))
      summary.textContent = `${page.total.toLocaleString('en-US')} settlement${page.total === 1 ? '' : 's'} match${page.total === 1 ? 'es' : ''}`
      const withCursor = (cursor: string | null) => {
        const next = new URLSearchParams(params)
        if (cursor === null) next.delete('cursor')
        else next.set('cursor', cursor)
        return routeHref({ view: 'events', params: next })
      }
      if (params.has('cursor')) paging.append(el('a', { href: withCursor(null) }, 'First page'))
      if (page.nextCursor) paging.append(el('a', { href: withCursor(page.nextCursor), rel: 'next' }, 'Next page'))
    },
    (error: Error) => !gone && (summary.textContent = error.message),
  )
  return () => void (gone = true)
}
