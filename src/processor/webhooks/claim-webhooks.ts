/**
 * Claiming due events into the lanes: as many as each lane has room for, again while a lane was filled
 * (there may be more of its kind). One claim round runs at a time; a wake during a round runs it again
 * after, so a burst of NOTIFYs and finished attempts costs one round, not one each.
 */
import { randomUUID } from 'node:crypto'
import type { WebhookOptions } from '../../config/index.js'
import { claimDueWebhooks, type ClaimedWebhook, type ProcessorServices } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { SlowMerchants } from './slow-merchants.js'
import type { WebhookLanes } from './webhook-lanes.js'

/** A claim outlives the request it covers by this much; it only matters when a worker dies mid-request. */
const LEASE_MARGIN_MS = 30_000

export interface ClaimParams {
  options: WebhookOptions
  db: ProcessorServices['db']
  log: Logger
  lanes: WebhookLanes
  slow: SlowMerchants
  /** Starts an attempt of a claimed event in its lane. */
  launch(event: ClaimedWebhook): void
  stopping: AbortSignal
}

export interface WebhookClaimer {
  /** There may be due events, or room for them. */
  wake(): void
  /** The round running now, if any, has ended. */
  idle(): Promise<void>
}

export function createWebhookClaimer({ options, db, log, lanes, slow, launch, stopping }: ClaimParams): WebhookClaimer {
  let pumping: Promise<void> | undefined
  let again = false

  const pump = async () => {
    do {
      again = false
      while (!stopping.aborted) {
        const knownSlow = slow.list()
        const room = lanes.room()
        const slowRoom = knownSlow.length === 0 ? 0 : lanes.slowRoom()
        if (room === 0 && slowRoom === 0) break
        const claimed = await claimDueWebhooks(db, {
          limit: room,
          slowLimit: slowRoom,
          slowMerchants: knownSlow,
          claimToken: randomUUID(),
          leaseMs: options.timeoutMs + LEASE_MARGIN_MS,
          perMerchant: options.perMerchantConcurrency,
          breakerFailures: options.breakerFailures,
        })
        for (const event of claimed) launch(event)
        const slowClaimed = claimed.filter((event) => event.slow).length
        // Another round only while a lane was filled: there may be more of its kind.
        if (!(room > 0 && claimed.length - slowClaimed === room) && !(slowRoom > 0 && slowClaimed === slowRoom)) break
      }
    } while (again && !stopping.aborted)
  }

  return {
    wake() {
      if (stopping.aborted) return
      if (pumping) {
        again = true
        return
      }
      pumping = pump()
        .catch((error: unknown) => log.warn('cannot claim webhooks', { error }))
        .finally(() => {
          pumping = undefined
        })
    },
    idle: async () => void (await pumping),
  }
}
