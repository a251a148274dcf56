/**
 * The delivery side of the webhook outbox (PROCESSOR.md §4; rows written by `webhook-outbox.ts`).
 *
 * A worker claims due events with a lease (`claimed_until`, taken under FOR UPDATE SKIP LOCKED) instead
 * of holding a transaction open across the HTTP request: several replicas share the outbox, no event is
 * sent by two of them at once, and a crashed worker's events come back when its lease ends (at least
 * once). An event is claimable only when no earlier event of its charge is pending — that is the
 * ordering per charge — and only within its merchant's share of the slots (fairness, circuit breaker), a
 * merchant known to answer slowly only into the worker's slow lane. Each attempt's outcome and its row in
 * `webhook_attempts` are one statement.
 */
import type { Database, Sql } from './open-database.js'
import { webhookChannel } from './webhook-outbox.js'

export type WebhookStatus = 'pending' | 'delivered' | 'failed'

export interface ClaimedWebhook {
  id: string
  merchantId: string
  webhookUrl: string
  /** The exact text of the stored payload: the request body. */
  body: string
  /** Attempts before this one since the event was queued. */
  attempts: number
  claimToken: string
  /** The newest webhook secret's id when the claim was made. */
  secretsVersion: number
  /** Claimed for the slow lane (its merchant is one of `slowMerchants`). */
  slow: boolean
}

export interface ClaimParams {
  /** Events of the other merchants to claim at most (the worker's free slots). */
  limit: number
  /** Events of `slowMerchants` to claim at most (the room in the worker's slow lane). */
  slowLimit: number
  /** Merchants whose endpoint answered slowly last time: claimed only into the slow lane. */
  slowMerchants: readonly string[]
  claimToken: string
  leaseMs: number
  /** Events of one merchant in flight at once, over all workers. */
  perMerchant: number
  /** Failures in a row after which a merchant's endpoint gets one event at a time (see `MerchantBreaker`). */
  breakerFailures: number
}

/** pg_advisory_xact_lock key of claiming: two workers counting a merchant's events in flight at once would both take its last slot. */
const CLAIM_LOCK = 0x77686b63

/**
 * Claims due events fairly: round by round, an event's round being the place it would take among its
 * merchant's requests in flight (a merchant with none in flight first, over all workers), so every
 * merchant's first before anyone's second; never more than `perMerchant` of a merchant's in flight, one
 * while its endpoint is failing, none while its circuit breaker has it paused. Known-slow merchants'
 * events count against `slowLimit`, the others' against `limit`: a slow endpoint never takes one of the
 * slots the others are served from.
 */
export async function claimDueWebhooks(db: Database, { limit, slowLimit, slowMerchants, claimToken, leaseMs, perMerchant, breakerFailures }: ClaimParams): Promise<ClaimedWebhook[]> {
  return db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK])
    const { rows } = await client.query<ClaimedWebhook>(
      `WITH in_flight AS (
         SELECT merchant_id, count(*)::int AS n FROM webhook_events
         WHERE status = 'pending' AND claimed_until > now() GROUP BY merchant_id
       ),
       ready AS (
         SELECT e.id, e.next_attempt_at, e.sequence, e.merchant_id = ANY($6::text[]) AS slow,
                COALESCE(f.n, 0) + row_number() OVER (PARTITION BY e.merchant_id ORDER BY e.next_attempt_at, e.sequence) AS round,
                CASE WHEN m.webhook_failures >= $5 THEN 1 ELSE $4::int END AS share
         FROM webhook_events e
         JOIN merchants m ON m.id = e.merchant_id
         LEFT JOIN in_flight f ON f.merchant_id = e.merchant_id
         WHERE e.status = 'pending' AND e.next_attempt_at <= now() AND (e.claimed_until IS NULL OR e.claimed_until <= now())
           AND (m.webhook_paused_until IS NULL OR m.webhook_paused_until <= now())
           AND NOT EXISTS (
             SELECT 1 FROM webhook_events earlier
             WHERE earlier.charge_id = e.charge_id AND earlier.merchant_id = e.merchant_id
               AND earlier.status = 'pending' AND earlier.sequence < e.sequence)
       ),
       due_now AS (
         SELECT e.id FROM webhook_events e JOIN ready r ON r.id = e.id
         WHERE r.round <= r.share AND NOT r.slow
         ORDER BY r.round, r.next_attempt_at, r.sequence
         LIMIT $1
         FOR UPDATE OF e SKIP LOCKED
       ),
       due_slow AS (
         SELECT e.id FROM webhook_events e JOIN ready r ON r.id = e.id
         WHERE r.round <= r.share AND r.slow
         ORDER BY r.round, r.next_attempt_at, r.sequence
         LIMIT $7
         FOR UPDATE OF e SKIP LOCKED
       ),
       due AS (SELECT id FROM due_now UNION ALL SELECT id FROM due_slow)
       UPDATE webhook_events e
       SET claim_token = $2, claimed_until = now() + make_interval(secs => $3::float8 / 1000),
           window_started_at = COALESCE(e.window_started_at, now())
       FROM due, merchants m
       WHERE e.id = due.id AND m.id = e.merchant_id
       RETURNING e.id, e.merchant_id AS "merchantId", m.webhook_url AS "webhookUrl", e.payload::text AS body, e.attempts,
                 e.claim_token AS "claimToken", (SELECT COALESCE(max(id), 0)::int FROM webhook_secrets) AS "secretsVersion",
                 e.merchant_id = ANY($6::text[]) AS slow`,
      [limit, claimToken, leaseMs, perMerchant, breakerFailures, slowMerchants, slowLimit],
    )
    return rows
  })
}

export interface AttemptOutcome {
  statusCode?: number
  error?: string
  durationMs: number
}

/** What an attempt means for its event, and so for the worker's claim. */
export type Verdict =
  | { kind: 'delivered' }
  /** Retry at `retryInMs` from now, or give up when the retry window (from the first attempt) is over. */
  | { kind: 'retry'; retryInMs: number; windowMs: number }
  /** The worker is stopping: the attempt is logged but not counted, and the event is free at once. */
  | { kind: 'released' }

/**
 * A merchant's circuit breaker: after `failures` failed attempts in a row its events are not claimed for
 * `cooldownMs`; then one at a time until one is delivered, each further failure pausing it again.
 */
export interface MerchantBreaker {
  failures: number
  cooldownMs: number
}

/**
 * Logs the attempt and, if the claim is still the worker's, applies the verdict to the event and counts
 * it on the merchant's breaker. Returns the event's status afterwards, or undefined when the claim had
 * been taken back (a manual retry).
 */
export async function recordWebhookAttempt(sql: Sql, event: Pick<ClaimedWebhook, 'id' | 'claimToken'>, outcome: AttemptOutcome, verdict: Verdict, breaker: MerchantBreaker): Promise<WebhookStatus | undefined> {
  const counted = verdict.kind === 'released' ? 0 : 1
  const retryInMs = verdict.kind === 'retry' ? verdict.retryInMs : 0
  const windowMs = verdict.kind === 'retry' ? verdict.windowMs : 0
  const { rows } = await sql.query<{ status: WebhookStatus }>(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (event_id, attempted_at, status_code, error, duration_ms)
       VALUES ($1, now() - make_interval(secs => ($5::int / 1000.0)::float8), $3::int, $4, $5::int)
     ),
     settled AS (
       UPDATE webhook_events SET
         attempts = attempts + $7,
         claim_token = NULL, claimed_until = NULL,
         last_error = CASE $6 WHEN 'delivered' THEN NULL WHEN 'retry' THEN COALESCE($4, 'HTTP ' || $3::int) ELSE last_error END,
         delivered_at = CASE $6 WHEN 'delivered' THEN now() ELSE delivered_at END,
         status = CASE
           WHEN $6 = 'delivered' THEN 'delivered'
           WHEN $6 = 'retry' AND now() >= window_started_at + make_interval(secs => $9::float8 / 1000) THEN 'failed'
           ELSE status END,
         next_attempt_at = CASE $6
           WHEN 'retry' THEN LEAST(now() + make_interval(secs => $8::float8 / 1000), window_started_at + make_interval(secs => $9::float8 / 1000))
           ELSE next_attempt_at END
       WHERE id = $1 AND claim_token = $2
       RETURNING status, merchant_id
     ),
     breaker AS (
       UPDATE merchants m SET
         webhook_failures = CASE $6 WHEN 'delivered' THEN 0 ELSE m.webhook_failures + 1 END,
         webhook_paused_until = CASE
           WHEN $6 = 'delivered' THEN NULL
           WHEN m.webhook_failures + 1 >= $10 THEN now() + make_interval(secs => $11::float8 / 1000)
           ELSE m.webhook_paused_until END
       FROM settled WHERE m.id = settled.merchant_id AND $6 <> 'released'
     ),
     -- Re-queued while this attempt was in flight: free it now rather than at the end of the lease.
     freed AS (
       UPDATE webhook_events SET claimed_until = NULL WHERE id = $1 AND claim_token IS NULL
     )
     SELECT status FROM settled`,
    [event.id, event.claimToken, outcome.statusCode ?? null, outcome.error?.slice(0, 500) ?? null, Math.round(outcome.durationMs), verdict.kind, counted, retryInMs, windowMs, breaker.failures, breaker.cooldownMs],
  )
  return rows[0]?.status
}

/**
 * Queues a merchant's event for delivery now, whatever its status, with a fresh retry window, and wakes
 * the workers. A claim in flight is taken back (its result will change nothing) but still holds the
 * event until that attempt ends, so two workers never send it at once. Returns false when the merchant
 * has no such event.
 */
export async function requeueWebhook(sql: Sql, merchantId: string, eventId: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `WITH requeued AS (
       UPDATE webhook_events SET status = 'pending', attempts = 0, next_attempt_at = now(), window_started_at = NULL, claim_token = NULL
       WHERE id = $1 AND merchant_id = $2
       RETURNING id
     )
     SELECT pg_notify($3, id) FROM requeued`,
    [eventId, merchantId, webhookChannel],
  )
  return rowCount === 1
}

export interface WebhookAttempt {
  /** When the request started. */
  attemptedAt: Date
  statusCode: number | null
  error: string | null
  durationMs: number
}

export interface WebhookDelivery {
  id: string
  chargeId: string
  type: string
  status: WebhookStatus
  payload: unknown
  createdAt: Date
  deliveredAt: Date | null
  /** When the next attempt is due (pending only). */
  nextAttemptAt: Date | null
  lastError: string | null
  /** Newest first. */
  attempts: WebhookAttempt[]
  /** Keyset position, for the cursor. */
  sequence: string
}

export interface ListWebhooksParams {
  merchantId: string
  id?: string
  chargeId?: string
  status?: WebhookStatus
  /** Only events older than this sequence (the cursor). */
  before?: string
  limit: number
}

/** A merchant's events, newest first, each with its attempts. */
export async function listWebhookDeliveries(sql: Sql, params: ListWebhooksParams): Promise<WebhookDelivery[]> {
  const { rows } = await sql.query<WebhookDelivery>(
    `SELECT e.id, e.charge_id AS "chargeId", e.type, e.status, e.payload, e.created_at AS "createdAt", e.delivered_at AS "deliveredAt",
            CASE WHEN e.status = 'pending' THEN GREATEST(e.next_attempt_at, e.claimed_until) END AS "nextAttemptAt",
            e.last_error AS "lastError", e.sequence::text AS sequence,
            COALESCE((SELECT json_agg(json_build_object('attemptedAt', a.attempted_at, 'statusCode', a.status_code, 'error', a.error, 'durationMs', a.duration_ms)
                                      ORDER BY a.attempted_at DESC, a.id DESC)
                      FROM webhook_attempts a WHERE a.event_id = e.id), '[]') AS attempts
     FROM webhook_events e
     WHERE e.merchant_id = $1 AND ($2::text IS NULL OR e.id = $2) AND ($3::text IS NULL OR e.charge_id = $3)
       AND ($4::text IS NULL OR e.status = $4) AND ($5::bigint IS NULL OR e.sequence < $5)
     ORDER BY e.sequence DESC
     LIMIT $6`,
    [params.merchantId, params.id ?? null, params.chargeId ?? null, params.status ?? null, params.before ?? null, params.limit],
  )
  for (const row of rows) for (const attempt of row.attempts) attempt.attemptedAt = new Date(attempt.attemptedAt)
  return rows
}

export async function findWebhookDelivery(sql: Sql, merchantId: string, id: string): Promise<WebhookDelivery | undefined> {
  const [delivery] = await listWebhookDeliveries(sql, { merchantId, id, limit: 1 })
  return delivery
}
