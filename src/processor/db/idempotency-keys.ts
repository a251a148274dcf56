/**
 * `Idempotency-Key` of the merchant API: a key names one creation per merchant and kind — a charge
 * (idempotency_keys) or a refund (refund_idempotency_keys, another namespace: the same key may name one
 * of each). Concurrent requests with the same key wait on a transaction-scoped advisory lock, so exactly
 * one of them creates the charge or refund and the others find it.
 */
import type { Sql } from './open-database.js'

export type IdempotentKind = 'charge' | 'refund'

export interface IdempotencyRecord {
  requestHash: string
  /** The charge or refund the key created. */
  payableId: string
}

// The lock names of charge keys predate refunds; a refund's adds its kind so the two never wait on each other.
const kinds = {
  charge: { table: 'idempotency_keys', owner: 'charge_id', lockName: (key: string) => key },
  refund: { table: 'refund_idempotency_keys', owner: 'refund_id', lockName: (key: string) => `refund:${key}` },
} as const

/** Serialises the requests of one merchant, kind and key until the transaction ends. */
export async function lockIdempotencyKey(sql: Sql, kind: IdempotentKind, merchantId: string, key: string): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idempotency:${merchantId}:${kinds[kind].lockName(key)}`])
}

export async function findIdempotencyKey(sql: Sql, kind: IdempotentKind, merchantId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const { table, owner } = kinds[kind]
  const { rows } = await sql.query<IdempotencyRecord>(`SELECT request_hash AS "requestHash", ${owner} AS "payableId" FROM ${table} WHERE merchant_id = $1 AND key = $2`, [merchantId, key])
  return rows[0]
}

export async function insertIdempotencyKey(sql: Sql, kind: IdempotentKind, merchantId: string, key: string, record: IdempotencyRecord): Promise<void> {
  const { table, owner } = kinds[kind]
  await sql.query(`INSERT INTO ${table} (merchant_id, key, request_hash, ${owner}) VALUES ($1, $2, $3, $4)`, [merchantId, key, record.requestHash, record.payableId])
}
