/**
 * The webhook delivery worker (PROCESSOR.md §4). Every checkout replica runs one on the shared outbox:
 * it claims due events (claim-webhooks.ts; see `db/webhook-deliveries.ts` for the lease, the ordering per
 * charge and each merchant's share: WEBHOOK_MERCHANT_CONCURRENCY in flight, a circuit breaker after
 * failures), signs each with every live secret, POSTs it, and records the attempt (attempt-webhook.ts) —
 * a 2xx delivers it, anything else is retried with exponential backoff and jitter until the retry window
 * after its first attempt is over, then it is `failed`. A NOTIFY on `webhook_enqueued` wakes it for new
 * events, a poll finds due retries, and the end of each attempt looks again (the charge's next event may
 * be free now). This file wires those pieces together and stops them.
 *
 * Slow endpoints (issue 38): a request holds one of the WEBHOOK_CONCURRENCY slots for at most
 * WEBHOOK_SLOW_MS; unanswered by then, it waits in the slow lane (WEBHOOK_SLOW_CONCURRENCY requests) and
 * its slot serves the next event (webhook-lanes.ts). A merchant whose last answer took that long is claimed
 * straight into the slow lane (`slow-merchants.ts`). A slow 2xx is still a delivery, not a failure: the merchant keeps its
 * share, and only its own events wait for its endpoint, however many such merchants there are.
 */
import type { WebhookOptions } from '../../config/index.js'
import type { ProcessorServices } from '../db/index.js'
import { webhookChannel, webhookSecretsChannel } from '../db/index.js'
import { serviceMetrics } from '../../platform/observability/index.js'
import { attemptWebhook, type AttemptContext } from './attempt-webhook.js'
import { createWebhookClaimer } from './claim-webhooks.js'
import { prepareWebhookSecrets } from './prepare-webhook-secrets.js'
import { createSlowMerchants } from './slow-merchants.js'
import { createWebhookLanes } from './webhook-lanes.js'
import { webhookDispatcher } from './webhook-target.js'

export interface WebhookDelivery {
  stop(): Promise<void>
}

export type WebhookDeliveryServices = ProcessorServices

/** `metrics`: the checkout replica's registry, which its `/metrics` serves (without one the counts go nowhere). */
export async function startWebhookDelivery(options: WebhookOptions, { db, log, metrics = serviceMetrics('checkout') }: WebhookDeliveryServices): Promise<WebhookDelivery> {
  log = log.child({ component: 'webhooks' })
  const attempts = metrics.counter('webhook_attempts_total', 'Webhook delivery attempts, by outcome: delivered (a 2xx) or failed (anything else; retried)')
  const secrets = await prepareWebhookSecrets(options, db, log)
  const stopping = new AbortController()
  const attempt: AttemptContext = {
    options,
    db,
    log,
    secrets,
    dispatcher: webhookDispatcher(options.allowInternalTargets),
    // Without a slow lane no merchant is known slow: its events would have nowhere to go.
    slow: createSlowMerchants(options.slowConcurrency > 0 ? options.slowMs : Number.POSITIVE_INFINITY),
    attempts,
    stopping: stopping.signal,
  }
  const lanes = createWebhookLanes(options, () => claimer.wake())
  const claimer = createWebhookClaimer({
    options,
    db,
    log,
    lanes,
    slow: attempt.slow,
    stopping: stopping.signal,
    launch: (event) =>
      lanes.launch(
        // The claim stays until its lease ends, so the event is tried again then.
        attemptWebhook(attempt, event).catch((error: unknown) => log.error('webhook delivery failed inside the worker', { id: event.id, error })),
        event.slow,
      ),
  })

  const reloadSecrets = () => secrets.reload().catch((error: unknown) => log.warn('cannot reload webhook secrets', { error }))
  const listener = await db.listen(
    [webhookChannel, webhookSecretsChannel],
    (channel) => (channel === webhookSecretsChannel ? void reloadSecrets() : claimer.wake()),
    () => {
      void reloadSecrets()
      claimer.wake()
    },
  )
  const poll = setInterval(() => claimer.wake(), options.pollMs)
  claimer.wake()

  return {
    async stop() {
      stopping.abort()
      clearInterval(poll)
      await listener.close()
      await claimer.idle()
      await lanes.settled()
      await attempt.dispatcher.close()
    },
  }
}
