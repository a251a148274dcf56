/**
 * Totals of the settlements the filter view's filters match (`/stats?<filters>`), per token, and a chart
 * of them over time (`/stats/series`): settlements per UTC day, or per UTC hour for a range of three
 * days or less, as an SVG of bars drawn here (no chart library). Without a date range the chart shows
 * the last 30 days. Each bar says its figures on hover (its `<title>`) and to a screen reader.
 */
import type { SeriesBucket, StatsSeries } from '../../../../wire/index.js'
import { el } from './dom.js'
import { filteredStats, statsSeries } from './explorer-api.js'
import { amountText } from './format.js'
import { totalsTable } from './token-totals.js'

const SVG = 'http://www.w3.org/2000/svg'
const DAY = 86_400
const MAX_BUCKETS = 2000

/** The `/stats` filters of the view's `/events` query (its page and cursor aside). */
export function statsQuery(events: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams(events)
  query.delete('limit')
  query.delete('cursor')
  return query
}

/** The series for a `/stats` query: its range (else the last 30 days), by day, or by hour up to three days. */
export function seriesQuery(stats: URLSearchParams, nowSeconds = Math.floor(Date.now() / 1000)): URLSearchParams {
  const query = new URLSearchParams(stats)
  const to = Number(stats.get('toTimestamp') ?? nowSeconds)
  let from = Number(stats.get('fromTimestamp') ?? to - 30 * DAY + 1)
  const interval = to - from <= 3 * DAY ? 'hour' : 'day'
  const seconds = interval === 'hour' ? 3600 : DAY
  // At most 2,000 buckets: a longer range shows its latest part.
  from = Math.max(from, (Math.floor(to / seconds) - MAX_BUCKETS + 1) * seconds)
  query.set('interval', interval)
  query.set('fromTimestamp', String(from))
  query.set('toTimestamp', String(to))
  return query
}

const svg = <K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>) => {
  const element = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  return element
}

/** Decimals per symbol, from the totals (the series names tokens by symbol only). */
export type SymbolDecimals = Record<string, number>

const bucketStart = (b: SeriesBucket, interval: StatsSeries['interval']) =>
  `${new Date(b.start * 1000).toISOString().slice(0, interval === 'day' ? 10 : 13).replace('T', ' ')}${interval === 'hour' ? ':00' : ''}`

function bucketText(b: SeriesBucket, interval: StatsSeries['interval'], decimals: SymbolDecimals): string {
  const volume = Object.entries(b.volume)
    .map(([symbol, units]) => (decimals[symbol] === undefined ? `${units} ${symbol} (smallest units)` : amountText(units, { tokenSymbol: symbol, tokenDecimals: decimals[symbol] })))
    .join(', ')
  return `${bucketStart(b, interval)} UTC: ${b.settlements} settlement${b.settlements === 1 ? '' : 's'}${volume ? ` (${volume})` : ''}`
}

/** What the chart shows, in words under it: the unit, the range and the tallest bar (the bars have no axis). */
function chartCaption(series: StatsSeries): string {
  const first = series.buckets[0]
  const last = series.buckets.at(-1)
  const most = Math.max(0, ...series.buckets.map((b) => b.settlements))
  const range = first && last ? `, ${bucketStart(first, series.interval)} to ${bucketStart(last, series.interval)}` : ''
  return `Settlements per UTC ${series.interval}${range} (${series.buckets.length} ${series.interval}s); the tallest bar is ${most.toLocaleString('en-US')}`
}

/** Bars of settlements per bucket, scaled to the largest; a bar per bucket, empty ones at zero height. */
export function seriesChart(series: StatsSeries, decimals: SymbolDecimals = {}): SVGSVGElement {
  const width = 600
  const height = 120
  const most = Math.max(1, ...series.buckets.map((b) => b.settlements))
  const step = width / Math.max(1, series.buckets.length)
  const first = series.buckets[0]
  const last = series.buckets.at(-1)
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'series-chart', role: 'img', preserveAspectRatio: 'none' })
  chart.setAttribute('aria-label', `Settlements per ${series.interval}${first && last ? `, ${bucketStart(first, series.interval)} to ${bucketStart(last, series.interval)}` : ''}; most in one ${series.interval}: ${most}`)
  series.buckets.forEach((b, i) => {
    const h = (b.settlements / most) * (height - 4)
    const bar = svg('rect', { x: i * step + step * 0.1, y: height - h, width: Math.max(step * 0.8, 0.5), height: h, 'data-start': b.start, 'data-settlements': b.settlements })
    const title = svg('title', {})
    title.textContent = bucketText(b, series.interval, decimals)
    bar.append(title)
    chart.append(bar)
  })
  return chart
}

/**
 * The time axis under the bars: the first and last bucket at the ends. On a fresh chain the default 30 days
 * are one bar at the right edge; the axis says that edge is today and the left one 29 days back.
 */
function seriesAxis(series: StatsSeries): HTMLElement {
  const first = series.buckets[0]
  const last = series.buckets.at(-1)
  return el('div', { class: 'series-axis', 'aria-hidden': 'true' }, el('span', {}, first ? bucketStart(first, series.interval) : ''), el('span', {}, last ? bucketStart(last, series.interval) : ''))
}

/** The section; `gone()` says the view was left, so late answers are dropped. */
export function filterStats(events: URLSearchParams, gone: () => boolean, heading = 'Totals for these filters'): HTMLElement {
  const totals = el('div', { class: 'table-wrap' }, 'Loading totals…')
  const chart = el('figure', { class: 'series' })
  const section = el('section', { class: 'filter-stats', 'aria-label': heading }, el('h2', {}, heading), totals, chart)
  const query = statsQuery(events)
  const figures = filteredStats(query)
  figures.then(
    (figures) => !gone() && totals.replaceChildren(totalsTable(figures)),
    (error: Error) => !gone() && totals.replaceChildren(error.message),
  )
  const decimals = figures.then(
    (figures) => Object.fromEntries(Object.values(figures.byToken).map((t) => [t.symbol, t.decimals])),
    () => ({}),
  )
  Promise.all([statsSeries(seriesQuery(query)), decimals]).then(
    ([series, decimals]) => {
      if (gone()) return
      chart.replaceChildren(seriesChart(series, decimals), seriesAxis(series), el('figcaption', {}, chartCaption(series)))
    },
    (error: Error) => !gone() && chart.replaceChildren(error.message),
  )
  return section
}
