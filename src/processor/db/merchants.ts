/**
 * Merchants as the certificate authority creates them and the checkout engine reads them (a request's
 * merchant is its client certificate's, see `certificates.ts`).
 */
import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'

export interface Merchant {
  /** `m_` and 24 lower-case hex digits. */
  id: string
  name: string
  webhookUrl: string
  /** bytes16, 0x-prefixed lower-case hex, or null. */
  acquirerId: Hex | null
  createdAt: Date
}

export type NewMerchant = Omit<Merchant, 'id' | 'createdAt'>

export const MERCHANT_ID = /^m_[0-9a-f]{24}$/

const columns = `id, name, webhook_url AS "webhookUrl", acquirer_id AS "acquirerId", created_at AS "createdAt"`

export async function insertMerchant(sql: Sql, merchant: NewMerchant): Promise<Merchant> {
  const { rows } = await sql.query<Merchant>(
    `INSERT INTO merchants (id, name, webhook_url, acquirer_id) VALUES ($1, $2, $3, $4) RETURNING ${columns}`,
    [`m_${randomBytes(12).toString('hex')}`, merchant.name, merchant.webhookUrl, merchant.acquirerId],
  )
  return rows[0]!
}

export async function findMerchant(sql: Sql, id: string): Promise<Merchant | undefined> {
  if (!MERCHANT_ID.test(id)) return undefined
  const { rows } = await sql.query<Merchant>(`SELECT ${columns} FROM merchants WHERE id = $1`, [id])
  return rows[0]
}

/** Every merchant, oldest first. */
export async function listMerchants(sql: Sql): Promise<Merchant[]> {
  const { rows } = await sql.query<Merchant>(`SELECT ${columns} FROM merchants ORDER BY created_at, id`)
  return rows
}

/** The merchant's new webhook URL (checked by the caller); its pending webhooks go there from their next attempt. */
export async function setMerchantWebhookUrl(sql: Sql, id: string, webhookUrl: string): Promise<Merchant | undefined> {
  const { rows } = await sql.query<Merchant>(`UPDATE merchants SET webhook_url = $2 WHERE id = $1 RETURNING ${columns}`, [id, webhookUrl])
  return rows[0]
}
