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
}

export interface NewSubmission {
  intent: PaymentIntent
  callerAddress: Hex
  digest: Hex
  request: unknown
}

export type EnqueueResult = 'enqueued' | 'duplicate'

/** Stores a new submission as ENQUEUING; a known payload id or binding digest is a duplicate. */
export async function enqueueSubmission(sql: Sql, { intent, callerAddress, digest, request }: NewSubmission): Promise<EnqueueResult> {
  const notice: StatusNotice = { payloadId: intent.payloadId, submissionType: intent.kind, status: 'ENQUEUING', callerAddress }
  const { rowCount } = await sql.query(
    `WITH inserted AS (
       INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, deadline, request, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'ENQUEUING')
       ON CONFLICT DO NOTHING
       RETURNING payload_id
     )
     SELECT pg_notify($10, payload_id), pg_notify($11, $12) FROM inserted`,
    [
      intent.payloadId, intent.kind, callerAddress, digest, intent.token, intent.owner, intent.permit.nonce.toString(),
      intent.permit.deadline.toString(), JSON.stringify(request), channels.enqueued, channels.status, JSON.stringify(notice),
    ],
  )
  return rowCount === 1 ? 'enqueued' : 'duplicate'
}

export async function findSubmission(sql: Sql, payloadId: string): Promise<SubmissionRow | undefined> {
  const { rows } = await sql.query(`SELECT ${rowColumns} FROM submissions WHERE payload_id = $1`, [payloadId])
  return rows[0] as SubmissionRow | undefined
}

export const rowColumns = `payload_id AS "payloadId", kind, caller_address AS "callerAddress", digest, status,
  tx_hash AS "txHash", failure_reason AS "failureReason", failure_category AS "failureCategory", request`

export function statusNoticeOf(row: SubmissionRow): StatusNotice {
  return {
    payloadId: row.payloadId,
    submissionType: row.kind,
    status: row.status,
    callerAddress: row.callerAddress,
    ...(row.txHash ? { txHash: row.txHash } : {}),
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    ...(row.failureCategory ? { failureCategory: row.failureCategory } : {}),
  }
}
