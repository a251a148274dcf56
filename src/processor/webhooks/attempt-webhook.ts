/**
 * One delivery attempt of one claimed event: signed with every live secret of its merchant, POSTed, and
 * recorded — a 2xx delivers it; anything else is retried with exponential backoff and jitter until the
 * retry window after its first attempt is over, then it is `failed`. An attempt cut off by the worker's
 * stop is released, not counted: the event is tried again by whichever replica claims it next.
 */
import type { Agent } from 'undici'
import type { WebhookOptions } from '../../config/index.js'
import { recordWebhookAttempt, type AttemptOutcome, type ClaimedWebhook, type ProcessorServices, type Verdict } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { retryDelayMs } from './backoff.js'
import type { SecretCache } from './secret-cache.js'
import { sendWebhook } from './send-webhook.js'
import { webhookHeaders } from './sign-webhook.js'
import type { SlowMerchants } from './slow-merchants.js'

export interface AttemptContext {
  options: WebhookOptions
  db: ProcessorServices['db']
  log: Logger
  secrets: SecretCache
  dispatcher: Agent
  slow: SlowMerchants
  /** Counts attempts by outcome. */
  attempts: (by: number, labels: { outcome: 'delivered' | 'failed' }) => void
  /** Aborted when the worker stops. */
  stopping: AbortSignal
}

export async function attemptWebhook(ctx: AttemptContext, event: ClaimedWebhook): Promise<void> {
  const { options, secrets, stopping, log } = ctx
  await secrets.catchUp(event.secretsVersion)
  const headers = webhookHeaders({ id: event.id, merchantId: event.merchantId, body: event.body, secrets: secrets.live(event.merchantId) })
  const outcome = await sendWebhook({
    url: event.webhookUrl,
    headers,
    body: event.body,
    timeoutMs: options.timeoutMs,
    signal: stopping,
    dispatcher: ctx.dispatcher,
    refuseInternal: !options.allowInternalTargets,
  })
  if (!stopping.aborted) ctx.slow.answered(event.merchantId, outcome.durationMs)
  const verdict = judge(ctx, outcome, event.attempts + 1)
  if (verdict.kind !== 'released') ctx.attempts(1, { outcome: verdict.kind === 'delivered' ? 'delivered' : 'failed' })
  const breaker = { failures: options.breakerFailures, cooldownMs: options.breakerCooldownMs }
  const status = await recordWebhookAttempt(ctx.db.pool, event, outcome, verdict, breaker)
  const fields = { id: event.id, attempt: event.attempts + 1, statusCode: outcome.statusCode, error: outcome.error, durationMs: Math.round(outcome.durationMs) }
  if (status === 'failed') log.warn('webhook given up after its retry window', fields)
  else log.debug(verdict.kind === 'delivered' ? 'webhook delivered' : 'webhook attempt failed', fields)
}

function judge({ options, stopping }: AttemptContext, outcome: AttemptOutcome, attempt: number): Verdict {
  if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300) return { kind: 'delivered' }
  if (stopping.aborted) return { kind: 'released' }
  const retryInMs = retryDelayMs(attempt, { baseMs: options.backoffBaseMs, maxMs: options.backoffMaxMs })
  return { kind: 'retry', retryInMs, windowMs: options.retryWindowMs }
}
