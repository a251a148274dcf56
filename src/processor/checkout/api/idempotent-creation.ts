/**
 * `Idempotency-Key` on creation, for every kind of payable (a charge, a refund): a key names one creation
 * per merchant and kind (`db/idempotency-keys.ts`). The same key and request again answers with what the
 * first made — with a payment-page token of its own, beside the first answer's, while it can still be
 * paid; the same key with another request is a 422. Concurrent requests with one key wait on its lock
 * inside the creating transaction, so exactly one creates and the others replay.
 */
import { findIdempotencyKey, insertIdempotencyKey, lockIdempotencyKey, type IdempotentKind, type Sql } from '../../db/index.js'
import { ProblemError } from '../../../platform/http/index.js'
import type { PayableKind, PayableRow } from '../../charges/index.js'
import { issueEphemeralToken } from './ephemeral-token.js'

export interface IdempotentRequest {
  kind: IdempotentKind
  merchantId: string
  /** The request's Idempotency-Key, if it has one. */
  key: string | undefined
  /** What makes two requests the same request (SHA-256 of its fields). */
  requestHash: string
  /** What the 422 says the key was used with. */
  otherRequest: string
}

/** The id of what an earlier request with this key made; undefined when the key is new or none was given. */
export async function earlierCreation(sql: Sql, request: IdempotentRequest): Promise<string | undefined> {
  if (request.key === undefined) return undefined
  const known = await findIdempotencyKey(sql, request.kind, request.merchantId, request.key)
  if (!known) return undefined
  if (known.requestHash !== request.requestHash) throw new ProblemError(422, `this Idempotency-Key was used with another ${request.otherRequest}`, 'Idempotency-Key')
  return known.payableId
}

/** As `earlierCreation`, inside the creating transaction: holds the key's lock until it ends. */
export async function lockedEarlierCreation(sql: Sql, request: IdempotentRequest): Promise<string | undefined> {
  if (request.key === undefined) return undefined
  await lockIdempotencyKey(sql, request.kind, request.merchantId, request.key)
  return earlierCreation(sql, request)
}

/** Stores the key with what it made, in the creating transaction. */
export async function rememberCreation(sql: Sql, request: IdempotentRequest, payableId: string): Promise<void> {
  if (request.key !== undefined) await insertIdempotencyKey(sql, request.kind, request.merchantId, request.key, { requestHash: request.requestHash, payableId })
}

/** A replay's payment-page token, beside the first answer's, while the payable awaits payment; null once it does not. */
export async function replayToken<Row extends PayableRow & { status: Status }, Status extends string, Awaiting extends Status>(
  sql: Sql,
  kind: PayableKind<Row, Status, Awaiting>,
  row: Row,
): Promise<string | null> {
  if (row.status !== kind.awaiting) return null
  const issued = issueEphemeralToken(row.deadline)
  await kind.queries.setReplayToken(sql, row.id, issued.hash, issued.expiresAt)
  return issued.token
}
