/**
 * Walks every page of a `GET /events` query by following `nextCursor`. Keyset pages mean settlements
 * indexed while iterating never shift or repeat entries; with `order: 'asc'` they are picked up at the end.
 */
import type { EventPage, EventsQuery, Settlement } from '../types.js'

export async function* iterateEvents(getPage: (query: EventsQuery) => Promise<EventPage>, query: EventsQuery): AsyncGenerator<Settlement, void, undefined> {
  let cursor = query.cursor
  do {
    const page = await getPage({ ...query, cursor })
    yield* page.events
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
}
