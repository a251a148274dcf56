/**
 * The worker's two lanes (issue 38). An attempt holds one of the WEBHOOK_CONCURRENCY slots for at most
 * WEBHOOK_SLOW_MS; unanswered by then, it moves to the slow lane (WEBHOOK_SLOW_CONCURRENCY attempts, looked
 * at again every WEBHOOK_SLOW_MS while full) and its slot serves the next event. An event of a merchant
 * known to be slow starts in the slow lane. So only a slow merchant's own events wait for its endpoint.
 */
import type { WebhookOptions } from '../../config/index.js'

export interface WebhookLanes {
  /** Free slots. */
  room(): number
  /** Free places in the slow lane. */
  slowRoom(): number
  /** Runs `attempt` in a lane; `freed` is called when it ends or moves out of a slot. */
  launch(attempt: Promise<void>, slow: boolean): void
  /** Every attempt running now has ended. */
  settled(): Promise<void>
}

export function createWebhookLanes(options: Pick<WebhookOptions, 'concurrency' | 'slowConcurrency' | 'slowMs'>, freed: () => void): WebhookLanes {
  /** Attempts holding one of the worker's slots. */
  const working = new Set<Promise<void>>()
  /** Attempts waiting on a slow endpoint: past `slowMs`, or to a merchant known to be slow. */
  const waiting = new Set<Promise<void>>()

  return {
    room: () => Math.max(0, options.concurrency - working.size),
    slowRoom: () => Math.max(0, options.slowConcurrency - waiting.size),
    launch(started, slow) {
      let lane = slow ? waiting : working
      let timer: NodeJS.Timeout | undefined
      const attempt = started.finally(() => {
        clearTimeout(timer)
        lane.delete(attempt)
        freed()
      })
      lane.add(attempt)
      // Unanswered after slowMs: the slot goes back, once the slow lane has room (looked at again every slowMs).
      const moveToSlowLane = () => {
        if (waiting.size >= options.slowConcurrency) return void (timer = setTimeout(moveToSlowLane, options.slowMs))
        working.delete(attempt)
        waiting.add(attempt)
        lane = waiting
        freed()
      }
      if (lane === working) timer = setTimeout(moveToSlowLane, options.slowMs)
    },
    settled: async () => void (await Promise.all([...working, ...waiting])),
  }
}
