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

/** What a gateway lets an owner queue: the permit nonce bound and the caps. */
export interface QueueLimits {
  /** The token's next permit nonce for the owner, as the chain says. */
  chainNonce: bigint
  /** Queued submissions (not yet final) per owner, and in all. */
  maxPerOwner: number
  maxTotal: number
}

/** Submissions not yet final when the request came: in all, the owner's, the owner's in this token. */
export interface QueuedCounts {
  total: number
  byOwner: number
  byOwnerToken: number
}

export interface EnqueueResult {
  /**
   * `nonce-ahead`: the permit nonce is past the chain's next one plus the owner's queued payments in the
   * token (nothing queued could ever bring the token there); `owner-full`, `queue-full`: a cap is reached.
   */
  outcome: 'enqueued' | 'duplicate' | 'nonce-ahead' | 'owner-full' | 'queue-full'
  queued: QueuedCounts
}

/**
 * Stores a new submission as ENQUEUING, unless `limits` refuse it; a known payload id or binding digest
 * is a duplicate. The counts and the insert are one statement, so concurrent requests see each other's
 * rows as far as PostgreSQL's snapshot allows (a cap can be passed by the requests in flight at once).
 */
export async function enqueueSubmission(sql: Sql, { intent, callerAddress, digest, request }: NewSubmission, limits?: QueueLimits): Promise<EnqueueResult> {
  const notice: StatusNotice = { payloadId: intent.payloadId, submissionType: intent.kind, status: 'ENQUEUING', callerAddress }
  const { rows } = await sql.query<{ refusal: EnqueueResult['outcome'] | null; inserted: number } & QueuedCounts>(
    `WITH queued AS (
       SELECT count(*) AS total, count(*) FILTER (WHERE owner = $6) AS by_owner, count(*) FILTER (WHERE owner = $6 AND token = $5) AS by_owner_token
       FROM submissions WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING')
     ),
     verdict AS (
       SELECT *, CASE
         WHEN $7::numeric > $13::numeric + by_owner_token THEN 'nonce-ahead'
         WHEN by_owner >= $14::bigint THEN 'owner-full'
         WHEN total >= $15::bigint THEN 'queue-full'
       END AS refusal
       FROM queued
     ),
     inserted AS (
       INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, deadline, request, status)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, 'ENQUEUING' FROM verdict WHERE refusal IS NULL
       ON CONFLICT DO NOTHING
       RETURNING payload_id
     ),
     notified AS (SELECT pg_notify($10, payload_id), pg_notify($11, $12) FROM inserted)
     SELECT refusal, total::int, by_owner::int AS "byOwner", by_owner_token::int AS "byOwnerToken", (SELECT count(*) FROM notified)::int AS inserted
     FROM verdict`,
    [
      intent.payloadId, intent.kind, callerAddress, digest, intent.token, intent.owner, intent.permit.nonce.toString(),
      intent.permit.deadline.toString(), JSON.stringify(request), channels.enqueued, channels.status, JSON.stringify(notice),
      limits?.chainNonce.toString() ?? null, limits?.maxPerOwner ?? null, limits?.maxTotal ?? null,
    ],
  )
  const { refusal, inserted, ...queued } = rows[0]!
  return { outcome: refusal ?? (inserted === 1 ? 'enqueued' : 'duplicate'), queued }
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
