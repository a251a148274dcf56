/**
 * One database read per change of a charge (or refund), shared by every page watching it (issue 38 item
 * 4): the first follower of an id watches it (the LISTEN connection's notices) and reads it once; later
 * followers get the last status read, no read of their own. A notice during a read asks for one more read
 * after it (the running one may predate the change), however many notices came, so a burst costs two
 * reads at most. Followers hear a status only when it differs from the last one sent, in order. The id
 * is forgotten with its last follower.
 */
import type { Logger, Metrics } from '../../platform/observability/index.js'
import type { ChargeWatch } from './charge-watch.js'

export type StatusRead = () => Promise<object | undefined>
export type Follower = (status: object) => void

/** What following an id found: it is unknown, or its status could not be read now. */
export type FollowRefusal = 'unknown' | 'unreadable'

export interface SharedStatus {
  /** Sends `follower` the status now and after every change; the remover, or why not. */
  follow(id: string, read: StatusRead, follower: Follower): Promise<(() => void) | FollowRefusal>
  /** Ids followed now. */
  readonly size: number
}

interface Entry {
  read: StatusRead
  followers: Set<Follower>
  /** Followers between `follow` and their first status: the entry must outlive them. */
  joining: number
  sent?: { json: string; status: object }
  failed: boolean
  again: boolean
  reading?: Promise<void>
  unwatch(): void
}

export function sharedStatus(watch: ChargeWatch, log: Logger, metrics: Metrics): SharedStatus {
  const entries = new Map<string, Entry>()
  const reads = metrics.counter('live_status_reads_total', 'Database reads of a charge or refund for the live status streams (one per change, whatever the number of streams)')
  metrics.collected('live_status_followed', 'Charges and refunds followed by live status streams now', () => entries.size)

  const drain = async (id: string, entry: Entry) => {
    while (entry.again) {
      entry.again = false
      reads()
      try {
        publish(entry, await entry.read())
        entry.failed = false
      } catch (error) {
        entry.failed = true
        log.warn('live status read failed', { id, error })
      }
    }
    entry.reading = undefined
  }
  const refresh = (id: string, entry: Entry) => {
    entry.again = true
    return (entry.reading ??= drain(id, entry))
  }
  const forget = (id: string, entry: Entry) => {
    if (entry.followers.size > 0 || entry.joining > 0 || entries.get(id) !== entry) return
    entries.delete(id)
    entry.unwatch()
  }

  return {
    async follow(id, read, follower) {
      let entry = entries.get(id)
      if (!entry) {
        const created: Entry = { read, followers: new Set(), joining: 0, failed: false, again: false, unwatch: () => {} }
        entries.set(id, (entry = created))
        // Watch first, then read: a change between the two is read again, never missed.
        created.unwatch = watch.watch(id, () => void refresh(id, created))
      }
      entry.joining++
      try {
        if (!entry.sent) await (entry.reading ?? refresh(id, entry))
      } finally {
        entry.joining--
      }
      if (!entry.sent) {
        forget(id, entry)
        return entry.failed ? 'unreadable' : 'unknown'
      }
      const followed = entry
      followed.followers.add(follower)
      follower(followed.sent!.status)
      return () => {
        followed.followers.delete(follower)
        forget(id, followed)
      }
    },
    get size() {
      return entries.size
    },
  }
}

function publish(entry: Entry, status: object | undefined): void {
  if (!status) return
  const json = JSON.stringify(status)
  if (json === entry.sent?.json) return
  entry.sent = { json, status }
  for (const follower of entry.followers) follower(status)
}
