/**
 * The explorer's REST API as the page reads it: same origin, JSON, a 404 as `undefined`, and any other
 * refusal as an error carrying the problem's detail.
 */
import { BaseError, type EventPage, type Settlement, type Stats, type StatsSeries } from '../../../../wire/index.js'

async function getJson<T>(path: string): Promise<T | undefined> {
  const response = await fetch(path, { headers: { accept: 'application/json' } })
  if (response.status === 404) return undefined
  const body = (await response.json()) as T & { detail?: string }
  if (!response.ok) throw new BaseError(body.detail ?? `${path} answered ${response.status}`, { details: { path, status: response.status }, retryable: response.status >= 500 })
  return body
}

export const settlementOfTransaction = (txHash: string) => getJson<Settlement>(`/events/${txHash}`)

export const settlementOfOrder = (orderReference: string) => getJson<Settlement>(`/events/order/${orderReference}`)

export async function stats(): Promise<Stats> {
  const body = await getJson<Stats>('/stats')
  if (!body) throw new BaseError('GET /stats is missing')
  return body
}

/** `/stats` for a filter (the same figures, of the matching settlements). */
export async function filteredStats(params: URLSearchParams): Promise<Stats> {
  const body = await getJson<Stats>(`/stats?${params}`)
  if (!body) throw new BaseError('GET /stats is missing')
  return body
}

export async function statsSeries(params: URLSearchParams): Promise<StatsSeries> {
  const body = await getJson<StatsSeries>(`/stats/series?${params}`)
  if (!body) throw new BaseError('GET /stats/series is missing')
  return body
}

export async function eventsPage(params: Record<string, string> | URLSearchParams): Promise<EventPage> {
  const page = await getJson<EventPage>(`/events?${new URLSearchParams(params)}`)
  if (!page) throw new BaseError('GET /events is missing')
  return page
}
