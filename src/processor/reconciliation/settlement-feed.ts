/**
 * The explorer's live feed as reconciliation consumes it: one SDK subscription to every settlement,
 * resumed from the cursor stored in PostgreSQL, whose settlements and removals queue up in chain order
 * with the cursor to store once they are applied. The SDK calls handlers synchronously and keeps its
 * own resume point, so a failure to apply is not retried here: the reconciler drops this feed and opens a
 * new one from the stored cursor. A queue past `maxQueued` (the database fell behind) stops taking
 * items the same way, so memory stays bounded.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../../platform/observability/index.js'
import { ExplorerClient } from '../../sdk/index.js'
import type { Settlement } from '../../wire/index.js'

export interface FeedItem {
  kind: 'settlement' | 'removed'
  event: Settlement
  /** Where a resume continues once this item is applied. */
  cursor: string | undefined
}

export interface SettlementFeed {
  /** Connects (retrying until `signal` aborts) and subscribes; resolves with the cursor the feed starts from. */
  open(signal: AbortSignal): Promise<string | undefined>
  /** Waits for items (until `signal` aborts) and takes up to `max` of them. */
  take(max: number, signal: AbortSignal): Promise<FeedItem[]>
  /** The queue overflowed: apply what was taken, then reopen from the stored cursor. */
  readonly overflowed: boolean
  connected(): boolean
  close(): Promise<void>
}

export interface SettlementFeedParams {
  explorerUrl: string
  since: string | undefined
  maxQueued: number
  log: Logger
}

const MAX_RETRY_MS = 10_000

export function openSettlementFeed({ explorerUrl, since, maxQueued, log }: SettlementFeedParams): SettlementFeed {
  const explorer = new ExplorerClient({ baseUrl: explorerUrl, onError: (error) => log.warn('explorer live feed', { error }) })
  const queue: FeedItem[] = []
  let overflowed = false
  let wake: (() => void) | undefined
  const push = (item: FeedItem) => {
    if (overflowed) return
    if (queue.length >= maxQueued) {
      overflowed = true
      log.warn('reconciliation fell behind the explorer feed; resuming from the stored cursor', { queued: queue.length })
      void explorer.disconnect()
    } else queue.push(item)
    wake?.()
  }
  const subscription = explorer.onSettlement({}, (event, { cursor }) => push({ kind: 'settlement', event, cursor }), {
    since,
    // The SDK has already moved the subscription's cursor before the removed settlement.
    onRemoved: (event) => push({ kind: 'removed', event, cursor: subscription.cursor }),
  })

  return {
    async open(signal) {
      for (let delay = 250, attempt = 0; ; delay = Math.min(delay * 2, MAX_RETRY_MS), attempt++) {
        signal.throwIfAborted()
        try {
          await explorer.connect()
          break
        } catch (error) {
          const report = attempt === 0 ? log.warn : log.debug
          report('explorer unavailable; reconciliation retries', { url: explorer.wsUrl, error })
          await sleep(delay, undefined, { signal }).catch(() => {})
        }
      }
      await new Promise<void>((resolve, reject) => {
        subscription.ready.then(resolve, reject)
        if (signal.aborted) reject(signal.reason as Error)
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })
      })
      log.info('reconciliation following the explorer', { url: explorer.wsUrl, since: subscription.cursor })
      return subscription.cursor
    },
    async take(max, signal) {
      if (queue.length === 0 && !overflowed && !signal.aborted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener('abort', done)
            wake = undefined
            resolve()
          }
          wake = done
          signal.addEventListener('abort', done, { once: true })
        })
      }
      return queue.splice(0, max)
    },
    get overflowed() {
      return overflowed
    },
    connected: () => explorer.connected,
    close: () => explorer.disconnect(),
  }
}
