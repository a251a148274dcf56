/**
 * The submissions queue (PROCESSOR.md §2) as the gateways and the broadcast submitter share it. Every
 * status change is written and announced in one transaction (`pg_notify` is delivered on COMMIT), so a
 * gateway never pushes a status the database does not hold.
 */
import type { Hex } from 'viem'
import type { PaymentIntent, SubmissionKind } from '../../wire/index.js'
import type { FailureCategory, SubmissionStatus, SubmissionStatusPush } from '../../wire/index.js'
import type { Sql } from './open-database.js'

/** NOTIFY channels. */
export const channels = {
  /** A submission was enqueued: the active submitter wakes up. Payload: the payload id. */
  enqueued: 'submission_enqueued',
  /** A status changed. Payload: `StatusNotice` JSON. */
  status: 'submission_status',
  /** The relayer's availability changed. Payload: `RelayerStatus` JSON. */
  relayer: 'relayer_status',
} as const

export interface StatusNotice extends Omit<SubmissionStatusPush, 'type'> {
  callerAddress: Hex
}

export interface SubmissionRow {
  payloadId: string
  kind: SubmissionKind
  callerAddress: Hex
  digest: Hex
  status: SubmissionStatus
  txHash: Hex | null
  failureReason: string | null
  failureCategory: FailureCategory | null
  /** The request as the wallet sent it. */
  request: unknown
  /** How many times in a row the submitter put it back to wait (permit nonce ahead, node not answering). */
  deferCount: number
  /** The token's permit nonce for the owner at the last wait (decimal), null if none or not nonce-related. */
  deferredAtNonce: string | null
  /** For a DROPPED failure still watched for a receipt: the last block of the watch (decimal). */
  watchedUntilBlock: string | null
}

export interface NewSubmission {
  intent: PaymentIntent
  callerAddress: Hex
  digest: Hex
  request: unknown
}

/**
 * What a gateway lets an owner queue: the permit nonce bound, the caps, and what tells an executable
 * submission from a future one (see `enqueueSubmission`).
 */
export interface QueueLimits {
  /** The token's next permit nonce for the owner, as the chain says. */
  chainNonce: bigint
  /** The owner's balance in the token, as the chain says. */
  balance: bigint
  /** Submissions not yet final per owner (both kinds), and executable ones in all. */
  maxPerOwner: number
  maxTotal: number
  /** Future submissions not yet final per owner (past it refused), and in all (past it the oldest waiting one is evicted). */
  maxFuturePerOwner: number
  maxFuture: number
}

/** Submissions not yet final when the request came: executable and future ones in all, the owner's, the owner's in this token, the owner's future ones. */
export interface QueuedCounts {
  total: number
  futureTotal: number
  byOwner: number
  byOwnerToken: number
  futureByOwner: number
}

export interface EnqueueResult {
  /**
   * `nonce-ahead`: the permit nonce is past the chain's next one plus the owner's queued payments in the
   * token (nothing queued could ever bring the token there); `owner-full`, `owner-future-full`,
   * `queue-full`: a cap is reached.
   */
  outcome: 'enqueued' | 'duplicate' | 'nonce-ahead' | 'owner-full' | 'owner-future-full' | 'queue-full'
  /** Whether the submission was classed (or, refused, would have been) future. */
  future: boolean
  queued: QueuedCounts
}

/**
 * Stores a new submission as ENQUEUING, unless `limits` refuse it; a known payload id or binding digest
 * is a duplicate. The counts and the insert are one statement, so concurrent requests see each other's
 * rows as far as PostgreSQL's snapshot allows (a cap can be passed by the requests in flight at once).
 *
 * The one place that tells executable from future (geth's pending and queued): with `limits`, a
 * submission is executable when its permit nonce is the chain's next one for the owner or follows an
 * executable submission of the same owner and token, no executable one of theirs has that nonce already
 * (only one permit per nonce can ever run), and the owner's balance covers its value on top of the
 * executable ones before it. Anything else is future: it may run one day, but nothing vouches for it.
 * Future submissions never count against `maxTotal`, so they cannot keep an executable one out; they
 * have budgets of their own, and a new one past `maxFuture` evicts the oldest waiting ones
 * (`evictOldestFuture`). Without `limits` (tests filling the queue directly) every submission is executable.
 */
export async function enqueueSubmission(sql: Sql, { intent, callerAddress, digest, request }: NewSubmission, limits?: QueueLimits): Promise<EnqueueResult> {
  const notice: StatusNotice = { payloadId: intent.payloadId, submissionType: intent.kind, status: 'ENQUEUING', callerAddress }
  const { rows } = await sql.query<{ refusal: EnqueueResult['outcome'] | null; future: boolean; inserted: number } & QueuedCounts>(
    `WITH queued AS (
       SELECT count(*) FILTER (WHERE NOT future) AS total, count(*) FILTER (WHERE future) AS future_total,
         count(*) FILTER (WHERE owner = $6) AS by_owner, count(*) FILTER (WHERE owner = $6 AND token = $5) AS by_owner_token,
         count(*) FILTER (WHERE owner = $6 AND future) AS future_by_owner,
         coalesce(bool_or(owner = $6 AND token = $5 AND NOT future AND permit_nonce = $7::numeric - 1), false) AS follows,
         coalesce(bool_or(owner = $6 AND token = $5 AND NOT future AND permit_nonce = $7::numeric), false) AS nonce_taken,
         coalesce(sum(permit_value) FILTER (WHERE owner = $6 AND token = $5 AND NOT future), 0) AS committed
       FROM submissions WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING')
     ),
     classed AS (
       SELECT *, $13::numeric IS NOT NULL AND NOT (
         ($7::numeric = $13::numeric OR follows) AND NOT nonce_taken AND committed + $17::numeric <= $16::numeric
       ) AS future
       FROM queued
     ),
     verdict AS (
       SELECT *, CASE
         WHEN $7::numeric > $13::numeric + by_owner_token THEN 'nonce-ahead'
         WHEN by_owner >= $14::bigint THEN 'owner-full'
         WHEN future AND future_by_owner >= $18::bigint THEN 'owner-future-full'
         WHEN NOT future AND total >= $15::bigint THEN 'queue-full'
       END AS refusal
       FROM classed
     ),
     inserted AS (
       INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, permit_value, deadline, request, status, future)
       SELECT $1, $2, $3, $4, $5, $6, $7, $17, $8, $9, 'ENQUEUING', future FROM verdict WHERE refusal IS NULL
       ON CONFLICT DO NOTHING
       RETURNING payload_id
     ),
     notified AS (SELECT pg_notify($10, payload_id), pg_notify($11, $12) FROM inserted)
     SELECT refusal, future, total::int, future_total::int AS "futureTotal", by_owner::int AS "byOwner", by_owner_token::int AS "byOwnerToken",
       future_by_owner::int AS "futureByOwner", (SELECT count(*) FROM notified)::int AS inserted
     FROM verdict`,
    [
      intent.payloadId, intent.kind, callerAddress, digest, intent.token, intent.owner, intent.permit.nonce.toString(),
      intent.permit.deadline.toString(), JSON.stringify(request), channels.enqueued, channels.status, JSON.stringify(notice),
      limits?.chainNonce.toString() ?? null, limits?.maxPerOwner ?? null, limits?.maxTotal ?? null,
      limits?.balance.toString() ?? null, intent.permit.value.toString(), limits?.maxFuturePerOwner ?? null,
    ],
  )
  const { refusal, inserted, future, ...queued } = rows[0]!
  return { outcome: refusal ?? (inserted === 1 ? 'enqueued' : 'duplicate'), future, queued }
}

export async function findSubmission(sql: Sql, payloadId: string): Promise<SubmissionRow | undefined> {
  const { rows } = await sql.query(`SELECT ${rowColumns} FROM submissions WHERE payload_id = $1`, [payloadId])
  return rows[0] as SubmissionRow | undefined
}

export const rowColumns = `payload_id AS "payloadId", kind, caller_address AS "callerAddress", digest, status,
  tx_hash AS "txHash", failure_reason AS "failureReason", failure_category AS "failureCategory", request, defer_count AS "deferCount",
  deferred_at_nonce::text AS "deferredAtNonce", dropped_watch_until::text AS "watchedUntilBlock"`

export function statusNoticeOf(row: SubmissionRow): StatusNotice {
  return {
    payloadId: row.payloadId,
    submissionType: row.kind,
    status: row.status,
    callerAddress: row.callerAddress,
    ...(row.txHash ? { txHash: row.txHash } : {}),
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    ...(row.failureCategory ? { failureCategory: row.failureCategory } : {}),
    ...(row.watchedUntilBlock ? { watchedUntilBlock: Number(row.watchedUntilBlock) } : {}),
  }
}
