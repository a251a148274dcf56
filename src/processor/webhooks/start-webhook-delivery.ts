/**
 * The webhook delivery worker (PROCESSOR.md §4). Every checkout replica runs one on the shared outbox:
 * it claims due events (see `db/webhook-deliveries.ts` for the lease, the ordering per charge and each
 * merchant's share: WEBHOOK_MERCHANT_CONCURRENCY in flight, a circuit breaker after failures), signs
 * each with every live secret, POSTs it, and records the attempt — a 2xx delivers it, anything else is
 * retried with exponential backoff and jitter until the retry window after its first attempt is over,
 * then it is `failed`. A NOTIFY on `webhook_enqueued` wakes it for new events, a poll finds due
 * retries, and the end of each attempt looks again (the charge's next event may be free now).
 *
 * Slow endpoints (issue 38): a request holds one of the WEBHOOK_CONCURRENCY slots for at most
 * WEBHOOK_SLOW_MS; unanswered by then, it waits in the slow lane (WEBHOOK_SLOW_CONCURRENCY requests) and
 * its slot serves the next event. A merchant whose last answer took that long is claimed straight into
 * the slow lane (`slow-merchants.ts`). A slow 2xx is still a delivery, not a failure: the merchant keeps its
 * share, and only its own events wait for its endpoint, however many such merchants there are.
 */
import { randomUUID } from 'node:crypto'
import type { WebhookOptions } from '../../config/index.js'
import type { ProcessorServices } from '../db/index.js'
import { claimDueWebhooks, recordWebhookAttempt, type AttemptOutcome, type ClaimedWebhook, type Verdict } from '../db/index.js'
import { webhookChannel } from '../db/index.js'
import { serviceMetrics } from '../../platform/observability/index.js'
import { sealStoredWebhookSecrets, seedWebhookSecret, webhookSecretsChannel } from '../db/index.js'
import { retryDelayMs } from './backoff.js'
import { resolveWebhookSecretKey } from './local-secret-key.js'
import { createSecretCache } from './secret-cache.js'
import { createSlowMerchants } from './slow-merchants.js'
import { openSecretBox } from './secret-box.js'
import { sendWebhook } from './send-webhook.js'
import { webhookHeaders } from './sign-webhook.js'
import { webhookDispatcher } from './webhook-target.js'

export interface WebhookDelivery {
  stop(): Promise<void>
}

/** A claim outlives the request it covers by this much; it only matters when a worker dies mid-request. */
const LEASE_MARGIN_MS = 30_000

export type WebhookDeliveryServices = ProcessorServices

/** `metrics`: the checkout replica's registry, which its `/metrics` serves (without one the counts go nowhere). */
export async function startWebhookDelivery(options: WebhookOptions, { db, log, metrics = serviceMetrics('checkout') }: WebhookDeliveryServices): Promise<WebhookDelivery> {
  log = log.child({ component: 'webhooks' })
  const attempts = metrics.counter('webhook_attempts_total', 'Webhook delivery attempts, by outcome: delivered (a 2xx) or failed (anything else; retried)')
  const sealer = await openSecretBox(options)
  const sealed = await sealStoredWebhookSecrets(db, sealer)
  if (sealed > 0) log.info('webhook secrets stored in the clear are now encrypted', { count: sealed })
  const seeded = await seedWebhookSecret(db, await resolveWebhookSecretKey(options), sealer)
  if (seeded === 'seeded') log.info('webhook secret seeded')
  else if (seeded === 'differs' && options.secretKey) {
    log.warn('WEBHOOK_SECRET_KEY is none of the stored webhook secrets and is not used: it only seeds an empty table; the stored secrets keep signing (replace them with npm run admin -- rotate-webhook-secret)')
  }
  const secrets = await createSecretCache(db.pool, sealer)
  const breaker = { failures: options.breakerFailures, cooldownMs: options.breakerCooldownMs }
  const dispatcher = webhookDispatcher(options.allowInternalTargets)
  const stopping = new AbortController()
  /** Attempts holding one of the worker's slots. */
  const working = new Set<Promise<void>>()
  /** Attempts waiting on a slow endpoint: past `slowMs`, or to a merchant known to be slow. */
  const waiting = new Set<Promise<void>>()
  // Without a slow lane no merchant is known slow: its events would have nowhere to go.
  const slow = createSlowMerchants(options.slowConcurrency > 0 ? options.slowMs : Number.POSITIVE_INFINITY)
  let pumping: Promise<void> | undefined
  let again = false

  const deliver = async (event: ClaimedWebhook) => {
    await secrets.catchUp(event.secretsVersion)
    const headers = webhookHeaders({ id: event.id, merchantId: event.merchantId, body: event.body, secrets: secrets.live(event.merchantId) })
    const outcome = await sendWebhook({
      url: event.webhookUrl,
      headers,
      body: event.body,
      timeoutMs: options.timeoutMs,
      signal: stopping.signal,
      dispatcher,
      refuseInternal: !options.allowInternalTargets,
    })
    if (!stopping.signal.aborted) slow.answered(event.merchantId, outcome.durationMs)
    const verdict = judge(outcome, event.attempts + 1)
    if (verdict.kind !== 'released') attempts(1, { outcome: verdict.kind === 'delivered' ? 'delivered' : 'failed' })
    const status = await recordWebhookAttempt(db.pool, event, outcome, verdict, breaker)
    const fields = { id: event.id, attempt: event.attempts + 1, statusCode: outcome.statusCode, error: outcome.error, durationMs: Math.round(outcome.durationMs) }
    if (status === 'failed') log.warn('webhook given up after its retry window', fields)
    else log.debug(verdict.kind === 'delivered' ? 'webhook delivered' : 'webhook attempt failed', fields)
  }

  const judge = (outcome: AttemptOutcome, attempt: number): Verdict => {
    if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300) return { kind: 'delivered' }
    if (stopping.signal.aborted) return { kind: 'released' }
    const retryInMs = retryDelayMs(attempt, { baseMs: options.backoffBaseMs, maxMs: options.backoffMaxMs })
    return { kind: 'retry', retryInMs, windowMs: options.retryWindowMs }
  }

  const launch = (event: ClaimedWebhook) => {
    let lane = event.slow ? waiting : working
    let timer: NodeJS.Timeout | undefined
    const attempt = deliver(event)
      // The claim stays until its lease ends, so the event is tried again then.
      .catch((error: unknown) => log.error('webhook delivery failed inside the worker', { id: event.id, error }))
      .finally(() => {
        clearTimeout(timer)
        lane.delete(attempt)
        wake()
      })
    lane.add(attempt)
    // Unanswered after slowMs: the slot goes back, once the slow lane has room (looked at again every slowMs).
    const moveToSlowLane = () => {
      if (waiting.size >= options.slowConcurrency) return void (timer = setTimeout(moveToSlowLane, options.slowMs))
      working.delete(attempt)
      waiting.add(attempt)
      lane = waiting
      wake()
    }
    if (lane === working) timer = setTimeout(moveToSlowLane, options.slowMs)
  }

  /** Claims as many due events as there is room for in each lane; runs alone, a wake during a run runs it again. */
  const pump = async () => {
    do {
      again = false
      while (!stopping.signal.aborted) {
        const knownSlow = slow.list()
        const room = Math.max(0, options.concurrency - working.size)
        const slowRoom = knownSlow.length === 0 ? 0 : Math.max(0, options.slowConcurrency - waiting.size)
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
    } while (again && !stopping.signal.aborted)
  }

  const wake = () => {
    if (stopping.signal.aborted) return
    if (pumping) {
      again = true
      return
    }
    pumping = pump()
      .catch((error: unknown) => log.warn('cannot claim webhooks', { error }))
      .finally(() => {
        pumping = undefined
      })
  }

  const reloadSecrets = () => secrets.reload().catch((error: unknown) => log.warn('cannot reload webhook secrets', { error }))
  const listener = await db.listen(
    [webhookChannel, webhookSecretsChannel],
    (channel) => (channel === webhookSecretsChannel ? void reloadSecrets() : wake()),
    () => {
      void reloadSecrets()
      wake()
    },
  )
  const poll = setInterval(wake, options.pollMs)
  wake()

  return {
    async stop() {
      stopping.abort()
      clearInterval(poll)
      await listener.close()
      await pumping
      await Promise.all([...working, ...waiting])
      await dispatcher.close()
    },
  }
}
