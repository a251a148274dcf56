/**
 * The webhook delivery worker (PROCESSOR.md §4). Every checkout replica runs one on the shared outbox:
 * it claims due events (see `db/webhook-deliveries.ts` for the lease, the ordering per charge and each
 * merchant's share: WEBHOOK_MERCHANT_CONCURRENCY in flight, a circuit breaker after failures), signs
 * each with every live secret, POSTs it, and records the attempt — a 2xx delivers it, anything else is
 * retried with exponential backoff and jitter until the retry window after its first attempt is over,
 * then it is `failed`. A NOTIFY on `webhook_enqueued` wakes it for new events, a poll finds due
 * retries, and the end of each attempt looks again (the charge's next event may be free now).
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
  const inFlight = new Set<Promise<void>>()
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
    const attempt = deliver(event)
      // The claim stays until its lease ends, so the event is tried again then.
      .catch((error: unknown) => log.error('webhook delivery failed inside the worker', { id: event.id, error: (error as Error).message }))
      .finally(() => {
        inFlight.delete(attempt)
        wake()
      })
    inFlight.add(attempt)
  }

  /** Claims as many due events as there is room for; runs alone, a wake during a run runs it again. */
  const pump = async () => {
    do {
      again = false
      for (let room = options.concurrency - inFlight.size; room > 0 && !stopping.signal.aborted; room = options.concurrency - inFlight.size) {
        const claimed = await claimDueWebhooks(db, {
          limit: room,
          claimToken: randomUUID(),
          leaseMs: options.timeoutMs + LEASE_MARGIN_MS,
          perMerchant: options.perMerchantConcurrency,
          breakerFailures: options.breakerFailures,
        })
        for (const event of claimed) launch(event)
        if (claimed.length < room) break
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
      .catch((error: unknown) => log.warn('cannot claim webhooks', { error: (error as Error).message }))
      .finally(() => {
        pumping = undefined
      })
  }

  const reloadSecrets = () => secrets.reload().catch((error: unknown) => log.warn('cannot reload webhook secrets', { error: (error as Error).message }))
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
      await Promise.all(inFlight)
      await dispatcher.close()
    },
  }
}
