/**
 * Payment links (issue 23) as the merchant API creates, reads and deactivates them and the widget turns
 * them into charges. A link's uses are its paid charges (confirming, settled, refunded) and its held ones:
 * awaiting payment and younger than their hold (`link_hold_until`, migration 015), so unpaid presses fill a
 * link only for the hold. A new charge takes the link's row (`lockPaymentLink`) first, so concurrent payers
 * on any widget replica never push it past `maxUses` together.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'

export interface PaymentLinkRow {
  id: string
  seq: string
  merchantId: string
  amount: string
  token: Hex
  currency: string
  beneficiary: Hex
  description: string
  maxUses: number | null
  expiresAt: Date | null
  /** Charges of the link paid (confirming, settled, refunded) or held (awaiting payment within their hold). */
  uses: number
  /** Of those, held. */
  heldCharges: number
  /** When the first of the held charges' holds ends; null without held charges. */
  nextHoldEndsAt: Date | null
  chargesCreated: number
  createdAt: Date
  deactivatedAt: Date | null
}

export type NewPaymentLink = Pick<PaymentLinkRow, 'id' | 'merchantId' | 'token' | 'currency' | 'beneficiary' | 'description' | 'maxUses' | 'expiresAt'> & { amount: bigint }

const held = `c.status = 'awaiting-payment' AND c.link_hold_until > now()`
const columns = `l.id, l.seq::text AS seq, l.merchant_id AS "merchantId", l.amount::text AS amount, l.token, l.currency, l.beneficiary, l.description,
  l.max_uses AS "maxUses", l.expires_at AS "expiresAt", l.charges_created AS "chargesCreated", l.created_at AS "createdAt", l.deactivated_at AS "deactivatedAt",
  (SELECT count(*) FROM charges c WHERE c.payment_link_id = l.id AND (c.status NOT IN ('awaiting-payment', 'expired', 'canceled') OR ${held}))::int AS uses,
  (SELECT count(*) FROM charges c WHERE c.payment_link_id = l.id AND ${held})::int AS "heldCharges",
  (SELECT min(c.link_hold_until) FROM charges c WHERE c.payment_link_id = l.id AND ${held}) AS "nextHoldEndsAt"`

export async function insertPaymentLink(sql: Sql, link: NewPaymentLink): Promise<PaymentLinkRow> {
  const { rows } = await sql.query<PaymentLinkRow>(
    `WITH l AS (INSERT INTO payment_links (id, merchant_id, amount, token, currency, beneficiary, description, max_uses, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *)
     SELECT ${columns} FROM l`,
    [link.id, link.merchantId, link.amount.toString(), link.token, link.currency, link.beneficiary, link.description, link.maxUses, link.expiresAt],
  )
  return rows[0]!
}

/** A merchant's link; another merchant's is as unknown as a missing one. */
export async function findPaymentLink(sql: Sql, merchantId: string, id: string): Promise<PaymentLinkRow | undefined> {
  const { rows } = await sql.query<PaymentLinkRow>(`SELECT ${columns} FROM payment_links l WHERE l.id = $1 AND l.merchant_id = $2`, [id, merchantId])
  return rows[0]
}

/** A link whoever its merchant: its public page knows it by id alone. */
export async function findPaymentLinkById(sql: Sql, id: string): Promise<PaymentLinkRow | undefined> {
  const { rows } = await sql.query<PaymentLinkRow>(`SELECT ${columns} FROM payment_links l WHERE l.id = $1`, [id])
  return rows[0]
}

/** The link, locked until the transaction ends (its uses are counted after the lock is taken). */
export async function lockPaymentLink(sql: Sql, id: string): Promise<PaymentLinkRow | undefined> {
  await sql.query(`SELECT 1 FROM payment_links WHERE id = $1 FOR UPDATE`, [id])
  return findPaymentLinkById(sql, id)
}

/** A merchant's links, newest first; `beforeSeq`: the previous page's last. */
export async function listPaymentLinks(sql: Sql, merchantId: string, page: { beforeSeq?: string; limit: number }): Promise<PaymentLinkRow[]> {
  const { rows } = await sql.query<PaymentLinkRow>(
    `SELECT ${columns} FROM payment_links l WHERE l.merchant_id = $1 AND ($2::bigint IS NULL OR l.seq < $2) ORDER BY l.seq DESC LIMIT $3`,
    [merchantId, page.beforeSeq ?? null, page.limit],
  )
  return rows
}

/** Deactivates the merchant's link (once: a second call keeps the first time); undefined if it has no such link. */
export async function deactivatePaymentLink(sql: Sql, merchantId: string, id: string): Promise<PaymentLinkRow | undefined> {
  const { rows } = await sql.query<PaymentLinkRow>(
    `WITH l AS (UPDATE payment_links SET deactivated_at = coalesce(deactivated_at, now()) WHERE id = $1 AND merchant_id = $2 RETURNING *)
     SELECT ${columns} FROM l`,
    [id, merchantId],
  )
  return rows[0]
}

/** Counts a new charge of a locked link: its number, for the charge's order id. */
export async function countPaymentLinkCharge(sql: Sql, id: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`UPDATE payment_links SET charges_created = charges_created + 1 WHERE id = $1 RETURNING charges_created AS n`, [id])
  return rows[0]!.n
}

/** Holds a new charge of a link for `seconds`: a use of the link until then, or until paid for good. */
export async function holdPaymentLinkCharge(sql: Sql, chargeId: string, seconds: number): Promise<void> {
  await sql.query(`UPDATE charges SET link_hold_until = now() + make_interval(secs => $2) WHERE id = $1`, [chargeId, seconds])
}

/**
 * Whether a charge of a link may still be paid without selling past `maxUses`: it is held, or the link has
 * room beside its paid and held charges. True for a charge not made from a link.
 */
export async function paymentLinkHasRoomFor(sql: Sql, chargeId: string): Promise<boolean> {
  const { rows } = await sql.query<{ room: boolean }>(
    `SELECT l."maxUses" IS NULL OR c.link_hold_until > now() OR l.uses < l."maxUses" AS room
     FROM charges c CROSS JOIN LATERAL (SELECT ${columns} FROM payment_links l WHERE l.id = c.payment_link_id) l WHERE c.id = $1`,
    [chargeId],
  )
  return rows[0]?.room ?? true
}
