/**
 * `Idempotency-Key` of the merchant API: a key names one charge creation per merchant. Concurrent
 * requests with the same key wait on a transaction-scoped advisory lock, so exactly one of them creates
 * the charge and the others find it.
 */
import type { Sql } from './open-database.js'

export interface IdempotencyRecord {
  requestHash: string
  chargeId: string
}

/** Serialises the requests of one merchant and key until the transaction ends. */
export async function lockIdempotencyKey(sql: Sql, merchantId: string, key: string): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idempotency:${merchantId}:${key}`])
}

export async function findIdempotencyKey(sql: Sql, merchantId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const { rows } = await sql.query<IdempotencyRecord>(
    `SELECT request_hash AS "requestHash", charge_id AS "chargeId" FROM idempotency_keys WHERE merchant_id = $1 AND key = $2`,
    [merchantId, key],
  )
  return rows[0]
}

export async function insertIdempotencyKey(sql: Sql, merchantId: string, key: string, record: IdempotencyRecord): Promise<void> {
  await sql.query(`INSERT INTO idempotency_keys (merchant_id, key, request_hash, charge_id) VALUES ($1, $2, $3, $4)`, [
    merchantId,
    key,
    record.requestHash,
    record.chargeId,
  ])
}
