/**
 * The broadcast submitter's side of the submissions queue: taking waiting work, and recording each
 * state change — with its NOTIFY in the same statement — before the submitter acts on it. A transaction
 * is recorded (nonce, hash, raw bytes) before it is sent, which is what makes a crash between sending
 * and recording harmless: the next active submitter re-sends the recorded bytes, never a new signature.
 */
import type { Hex } from 'viem'
import type { FailureCategory, SubmissionStatus } from '../../wire/index.js'
import type { Database, Sql } from './open-database.js'
import { channels, rowColumns, type SubmissionRow } from './submissions.js'

export interface RecordedTransaction {
  txHash: Hex
  nonce: number
  raw: Hex
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  sentAt: Date
}

export interface InFlight {
  payloadId: string
  nonce: number
  /** Oldest first; the last one is the current (highest-fee) replacement. */
  transactions: RecordedTransaction[]
}

/**
 * Waiting submissions (ENQUEUING or PENDING) whose turn has come: executable ones before future ones
 * (submissions.ts), then the least often put back, then the oldest, so neither future permits nor
 * re-checks of permits that keep waiting ever crowd out fresh payments.
 */
export async function waitingSubmissions(sql: Sql, limit: number): Promise<SubmissionRow[]> {
  const { rows } = await sql.query(
    `SELECT ${rowColumns} FROM submissions
     WHERE status IN ('ENQUEUING', 'PENDING') AND not_before <= now()
     ORDER BY future, defer_count, created_at LIMIT $1`,
    [limit],
  )
  return rows as SubmissionRow[]
}

/** One submission's change; `txHash` (when given) is stored with it. */
interface Change {
  payloadId: string
  txHash?: Hex
}

/**
 * Moves submissions to `status` and announces each change, all in one statement. Only rows still in one
 * of `from` change, so a stale decision never overwrites a newer state. Of the failures only a DROPPED
 * one still watched can change (when a receipt shows up after all, or the watch ends): every other one
 * is final. `watchUntil` is stored with a DROPPED verdict; any other change clears it. Answers the
 * payload ids that changed.
 */
async function transition(
  sql: Sql,
  changes: Change[],
  from: SubmissionStatus[],
  status: SubmissionStatus,
  failure: { category?: FailureCategory; reason?: string; watchUntil?: bigint } = {},
): Promise<string[]> {
  if (changes.length === 0) return []
  const { rows } = await sql.query<{ payloadId: string }>(
    `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[]) AS i(payload_id, tx_hash)),
     changed AS (
       UPDATE submissions s SET status = $4, tx_hash = COALESCE(i.tx_hash, s.tx_hash), failure_category = $5, failure_reason = $6,
         dropped_watch_until = $8, updated_at = now()
       FROM input i
       WHERE s.payload_id = i.payload_id AND s.status = ANY($3) AND (s.status <> 'FAILURE' OR s.dropped_watch_until IS NOT NULL)
       RETURNING s.payload_id, s.kind, s.caller_address, s.status, s.tx_hash, s.failure_category, s.failure_reason, s.dropped_watch_until
     )
     SELECT payload_id AS "payloadId", pg_notify($7, json_strip_nulls(json_build_object(
       'payloadId', payload_id, 'submissionType', kind, 'status', status, 'callerAddress', caller_address,
       'txHash', tx_hash, 'failureCategory', failure_category, 'failureReason', failure_reason,
       'watchedUntilBlock', dropped_watch_until))::text)
     FROM changed`,
    [
      changes.map((c) => c.payloadId), changes.map((c) => c.txHash ?? null), from, status, failure.category ?? null, failure.reason?.slice(0, 500) ?? null,
      channels.status, failure.watchUntil?.toString() ?? null,
    ],
  )
  return rows.map((row) => row.payloadId)
}

/** Validated submissions about to be signed; only those still ENQUEUING move (an evicted one does not): the ids moved. */
export const markPending = (sql: Sql, payloadIds: string[]) => transition(sql, payloadIds.map((payloadId) => ({ payloadId })), ['ENQUEUING'], 'PENDING')

/** A final failure; a DROPPED one still watched may also become REVERTED when its receipt shows up. */
export function markFailed(sql: Sql, payloadId: string, category: FailureCategory, reason: string, txHash?: Hex) {
  return transition(sql, [{ payloadId, txHash }], ['ENQUEUING', 'PENDING', 'BROADCASTING', 'FAILURE'], 'FAILURE', { category, reason })
}

/** The DROPPED verdict, watched for a receipt until block `watchUntil` (kept in the row: a restart resumes the watch). */
export function markDropped(sql: Sql, payloadId: string, reason: string, watchUntil: bigint) {
  return transition(sql, [{ payloadId }], ['BROADCASTING'], 'FAILURE', { category: 'DROPPED', reason, watchUntil })
}

/** The end of a DROPPED submission's watch without a receipt: announced again, now final. */
export function endDroppedWatch(sql: Sql, payloadId: string, reason: string) {
  return transition(sql, [{ payloadId }], ['FAILURE'], 'FAILURE', { category: 'DROPPED', reason })
}

/**
 * Each submission mined successfully in its transaction `txHash` (also one wrongly called DROPPED). The
 * same owner's waiting payments in the same token are due at once: the next permit nonce may be theirs,
 * and the one whose permit nonce follows is executable now if it was stored future.
 */
export async function markSucceeded(sql: Sql, mined: { payloadId: string; txHash: Hex }[]): Promise<void> {
  if (mined.length === 0) return
  await transition(sql, mined, ['BROADCASTING', 'FAILURE'], 'SUCCESS')
  await sql.query(
    `WITH mined AS (SELECT owner, token, permit_nonce FROM submissions WHERE payload_id = ANY($1))
     UPDATE submissions w SET not_before = least(w.not_before, now()),
       future = w.future AND NOT EXISTS (SELECT 1 FROM mined m WHERE m.owner = w.owner AND m.token = w.token AND m.permit_nonce + 1 = w.permit_nonce)
     WHERE w.status IN ('ENQUEUING', 'PENDING') AND (w.owner, w.token) IN (SELECT owner, token FROM mined)`,
    [mined.map((m) => m.payloadId)],
  )
}

/**
 * Makes room for one more future submission within `budget`: the oldest future ones still waiting
 * (ENQUEUING) end FAILURE `EVICTED`, announced like any change. Evictions run one at a time (a
 * transaction-level advisory lock), each counting after the one before it committed, so together they
 * evict exactly what passes the budget, never a permit twice or one too many. They never wait for a row:
 * one locked by someone else (the submitter taking it) is skipped for the next oldest. Concurrent
 * evictions used to lock overlapping rows in different orders (array order on a nested loop, heap order
 * on a hash join), and PostgreSQL broke the deadlock (40P01) by failing one of them.
 */
export async function evictOldestFuture(db: Pick<Database, 'transaction'>, budget: number): Promise<string[]> {
  return db.transaction(async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('submissions:evict-future', 0))`)
    const { rows } = await client.query<{ payloadId: string }>(
      `SELECT payload_id AS "payloadId" FROM submissions WHERE future AND status = 'ENQUEUING' ORDER BY created_at
       LIMIT greatest(0, (SELECT count(*) FROM submissions WHERE future AND status IN ('ENQUEUING', 'PENDING', 'BROADCASTING')) - $1)
       FOR UPDATE SKIP LOCKED`,
      [budget],
    )
    const reason = `evicted: ${budget} submissions that could not run yet (permit nonce ahead of the chain's, or more than the owner's balance covers) were waiting, and newer ones came; sign it again once it can run`
    return transition(client, rows, ['ENQUEUING'], 'FAILURE', { category: 'EVICTED', reason })
  })
}

/** Holds a submission back until `delayMs` from now, with its count of waits and the token nonce seen. */
export async function deferSubmission(sql: Sql, payloadId: string, wait: { delayMs: number; deferCount: number; atNonce: bigint | undefined }): Promise<void> {
  await sql.query(
    `UPDATE submissions SET not_before = now() + make_interval(secs => $2::float8 / 1000), defer_count = $3, deferred_at_nonce = $4 WHERE payload_id = $1`,
    [payloadId, wait.delayMs, wait.deferCount, wait.atNonce?.toString() ?? null],
  )
}

/**
 * Records signed transactions, one per submission, and moves each submission to BROADCASTING (a
 * replacement keeps the status and announces its new hash). Must commit before any of them is sent.
 */
export async function recordTransactions(sql: Sql, relayer: Hex, signed: { payloadId: string; tx: Omit<RecordedTransaction, 'sentAt'> }[]): Promise<void> {
  if (signed.length === 0) return
  const column = <T>(pick: (tx: Omit<RecordedTransaction, 'sentAt'>) => T) => signed.map(({ tx }) => pick(tx))
  await sql.query(
    `INSERT INTO submission_transactions (tx_hash, payload_id, relayer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas)
     SELECT tx_hash, payload_id, $3, nonce, raw, max_fee, max_priority
     FROM unnest($1::text[], $2::text[], $4::bigint[], $5::text[], $6::numeric[], $7::numeric[])
       AS t(tx_hash, payload_id, nonce, raw, max_fee, max_priority)`,
    [
      column((tx) => tx.txHash), signed.map((s) => s.payloadId), relayer, column((tx) => tx.nonce), column((tx) => tx.raw),
      column((tx) => tx.maxFeePerGas.toString()), column((tx) => tx.maxPriorityFeePerGas.toString()),
    ],
  )
  await transition(sql, signed.map(({ payloadId, tx }) => ({ payloadId, txHash: tx.txHash })), ['PENDING', 'BROADCASTING'], 'BROADCASTING')
}

/** Every BROADCASTING submission of this relayer with its recorded transactions, by nonce. */
export const inFlightSubmissions = (sql: Sql, relayer: Hex): Promise<InFlight[]> => withTransactions(sql, relayer, `s.status = 'BROADCASTING'`)

/** A DROPPED submission still watched for a receipt, until block `watchUntil`. */
export interface DroppedWatch {
  entry: InFlight
  watchUntil: bigint
}

/** Every DROPPED submission of this relayer whose watch has not ended (a restarted submitter resumes them). */
export async function droppedWatches(sql: Sql, relayer: Hex): Promise<DroppedWatch[]> {
  const entries = await withTransactions(sql, relayer, `s.status = 'FAILURE' AND s.dropped_watch_until IS NOT NULL`)
  return entries.map(({ watchUntil, ...entry }) => ({ entry, watchUntil: BigInt(watchUntil!) }))
}

/** The submissions matching `where` (a fixed condition on `s`) that have transactions of this relayer, with them. */
async function withTransactions(sql: Sql, relayer: Hex, where: string): Promise<(InFlight & { watchUntil: string | null })[]> {
  const { rows } = await sql.query<{ payloadId: string; txHash: Hex; nonce: string; raw: Hex; maxFee: string; maxPriority: string; sentAt: Date; watchUntil: string | null }>(
    `SELECT t.payload_id AS "payloadId", t.tx_hash AS "txHash", t.nonce, t.raw, t.max_fee_per_gas::text AS "maxFee",
            t.max_priority_fee_per_gas::text AS "maxPriority", t.sent_at AS "sentAt", s.dropped_watch_until::text AS "watchUntil"
     FROM submission_transactions t JOIN submissions s USING (payload_id)
     WHERE ${where} AND t.relayer = $1
     ORDER BY t.nonce, t.sent_at`,
    [relayer],
  )
  const byPayload = new Map<string, InFlight & { watchUntil: string | null }>()
  for (const row of rows) {
    let entry = byPayload.get(row.payloadId)
    if (!entry) byPayload.set(row.payloadId, (entry = { payloadId: row.payloadId, nonce: Number(row.nonce), transactions: [], watchUntil: row.watchUntil }))
    entry.transactions.push({
      txHash: row.txHash,
      nonce: Number(row.nonce),
      raw: row.raw,
      maxFeePerGas: BigInt(row.maxFee),
      maxPriorityFeePerGas: BigInt(row.maxPriority),
      sentAt: row.sentAt,
    })
  }
  return [...byPayload.values()]
}

/** The highest nonce this relayer ever recorded, or -1. */
export async function highestRecordedNonce(sql: Sql, relayer: Hex): Promise<number> {
  const { rows } = await sql.query<{ nonce: string | null }>(`SELECT max(nonce)::text AS nonce FROM submission_transactions WHERE relayer = $1`, [relayer])
  return rows[0]?.nonce == null ? -1 : Number(rows[0].nonce)
}
