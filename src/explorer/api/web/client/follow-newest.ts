/**
 * The newest settlements of a filter, then every new one, with no gap and none twice, across network
 * drops. The newest settlement's cursor (the `nextCursor` of a one-settlement page) anchors everything:
 * the stream starts after it (`since`, so a reconnect before any live event still replays what it
 * missed) and the history page before it. With fewer than two settlements there is no such cursor yet:
 * the stream opens live and the page is read once it is open, a settlement in both shown once.
 */
import type { EventPage } from '../../../../wire/index.js'
import { eventsPage } from './explorer-api.js'
import type { LiveTable } from './live-table.js'
import { followStream } from './live-stream.js'

export interface FollowNewestOptions {
  filter: Record<string, string>
  table: LiveTable
  /** Settlements read at first, the newest included. */
  pageSize: number
  state(text: string): void
  /** The first page is shown; its `nextCursor` continues below it. */
  loaded(page: EventPage): void
  /** A settlement arrived or was removed. */
  changed?(): void
}

export function followNewest(options: FollowNewestOptions): () => void {
  const { filter, table, pageSize, state } = options
  let stop: (() => void) | undefined
  let stopped = false
  const fail = (error: Error) => state(error.message)
  const handlers = {
    opened() {},
    settlement: (settlement: Parameters<LiveTable['push']>[0]) => {
      table.push(settlement)
      options.changed?.()
    },
    removed: (settlement: Parameters<LiveTable['remove']>[0]) => {
      table.remove(settlement)
      options.changed?.()
    },
    state,
  }
  const start = async () => {
    const newest = await eventsPage({ ...filter, limit: '1' })
    if (stopped) return
    const anchor = newest.nextCursor
    if (anchor === null) {
      const read = () => eventsPage({ ...filter, limit: String(pageSize) }).then((page) => !stopped && (table.append(page.events), options.loaded(page)), fail)
      stop = followStream(filter, { ...handlers, opened: (first) => void (first && read()) })
      return
    }
    table.append(newest.events)
    stop = followStream(filter, handlers, anchor)
    const older = await eventsPage({ ...filter, limit: String(pageSize - 1), cursor: anchor })
    if (stopped) return
    table.append(older.events)
    options.loaded({ ...older, events: [...newest.events, ...older.events], total: newest.total })
  }
  start().catch(fail)
  return () => {
    stopped = true
    stop?.()
  }
}
