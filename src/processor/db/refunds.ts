/**
 * Refunds (issue 23) as the merchant API creates and reads them and reconciliation moves them (their
 * settlements seen are `payments.ts`, their Idempotency-Keys `idempotency-keys.ts`). As for charges, a state change
 * takes the row with `refundQueries.lock` first, in the transaction that writes its webhook event; every change
 * is announced on NOTIFY `charge_changed` with the refund's id, so the widget's live status (which
 * dispatches by id) follows refund pages too. The queries refunds share with charges are `payable-queries.ts`.
 */
import type { Hex } from 'viem'
import { chargeChangedChannel } from './charges.js'
import type { Sql } from './open-database.js'
import { payableQueries, type PayableTransition } from './payable-queries.js'
import type { SettlementPosition } from './settlement-position.js'

export const refundStatuses = ['awaiting-signature', 'confirming', 'settled', 'expired', 'canceled'] as const
export type RefundStatus = (typeof refundStatuses)[number]

/** Refunds in these states count against what is left to refund: they are paid or may still be. */
export const reservingRefundStatuses: readonly RefundStatus[] = ['awaiting-signature', 'confirming', 'settled']

export interface RefundRow {
  id: string
  seq: string
  chargeId: string
  /** The charge's `orderId`. */
  orderId: string
  merchantId: string
  status: RefundStatus
  amount: string
  reason: string | null
  token: Hex
  currency: string
  payer: Hex
  recipient: Hex
  orderReference: Hex
  acquirerId: Hex
  fees: string
  totalToPay: string
  deadline: Date
  createdAt: Date
  settlement: (SettlementPosition & { confirmations: number }) | null
}

export type NewRefund = Omit<RefundRow, 'seq' | 'orderId' | 'status' | 'settlement' | 'totalToPay'> & { ephemeralTokenHash: string; ephemeralTokenExpiresAt: Date }

// The subquery's unqualified charge_id is the refund row's, in a plain SELECT and in an UPDATE's CTE alike.
// `seq` comes out as text, so an ORDER BY names the table's column (`refunds.seq`): the bare name would be
// the text alias, and "99" sorts after "100".
const columns = `id, seq::text AS seq, charge_id AS "chargeId", (SELECT c.order_id FROM charges c WHERE c.id = charge_id) AS "orderId", merchant_id AS "merchantId", status, amount::text AS amount, reason, token, currency,
  payer, recipient, order_reference AS "orderReference", acquirer_id AS "acquirerId", fees::text AS fees, total_to_pay::text AS "totalToPay",
  deadline, created_at AS "createdAt",
  CASE WHEN tx_hash IS NULL THEN NULL ELSE json_build_object('txHash', tx_hash, 'blockNumber', block_number, 'logIndex', log_index, 'confirmations', confirmations) END AS settlement`

export async function insertRefund(sql: Sql, refund: NewRefund): Promise<RefundRow> {
  const { rows } = await sql.query<RefundRow>(
    `INSERT INTO refunds (id, charge_id, merchant_id, status, amount, reason, token, currency, payer, recipient, order_reference, acquirer_id, fees,
       total_to_pay, deadline, ephemeral_token_hash, ephemeral_token_expires_at, created_at)
     VALUES ($1, $2, $3, 'awaiting-signature', $4, $5, $6, $7, $8, $9, $10, $11, $12, $4::numeric + $12::numeric, $13, $14, $15, $16)
     RETURNING ${columns}`,
    [
      refund.id, refund.chargeId, refund.merchantId, refund.amount, refund.reason, refund.token, refund.currency, refund.payer, refund.recipient,
      refund.orderReference, refund.acquirerId, refund.fees, refund.deadline, refund.ephemeralTokenHash, refund.ephemeralTokenExpiresAt, refund.createdAt,
    ],
  )
  return rows[0]!
}

/** A charge's refunds, newest first (a charge has few: each needs a signed payment). */
export async function refundsOfCharge(sql: Sql, chargeId: string): Promise<RefundRow[]> {
  const { rows } = await sql.query<RefundRow>(`SELECT ${columns} FROM refunds WHERE charge_id = $1 ORDER BY refunds.seq DESC`, [chargeId])
  return rows
}

export interface RefundFilter {
  status?: RefundStatus
  /** Created at or after this time. */
  from?: Date
  /** Created before this time. */
  to?: Date
  /** The charge's beneficiary: who pays the refund. */
  payer?: Hex
  chargeId?: string
  /** The charge's order id. */
  orderId?: string
}

/** A merchant's refunds, newest first, filtered, in keyset pages (`beforeSeq`: the previous page's last): the refunds report. */
export async function listRefunds(sql: Sql, merchantId: string, page: RefundFilter & { beforeSeq?: string; limit: number }): Promise<RefundRow[]> {
  const { rows } = await sql.query<RefundRow>(
    `SELECT ${columns} FROM refunds
     WHERE merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR seq < $3)
       AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6) AND ($7::text IS NULL OR payer = $7)
       AND ($8::text IS NULL OR charge_id = $8) AND ($9::text IS NULL OR charge_id = (SELECT c.id FROM charges c WHERE c.merchant_id = $1 AND c.order_id = $9))
     ORDER BY refunds.seq DESC LIMIT $4`,
    [merchantId, page.status ?? null, page.beforeSeq ?? null, page.limit, page.from ?? null, page.to ?? null, page.payer?.toLowerCase() ?? null, page.chargeId ?? null, page.orderId ?? null],
  )
  return rows
}

/** What the charge's refunds that are paid or may still be add up to. */
export async function reservedRefundAmount(sql: Sql, chargeId: string): Promise<bigint> {
  const { rows } = await sql.query<{ sum: string }>(`SELECT COALESCE(sum(amount), 0)::text AS sum FROM refunds WHERE charge_id = $1 AND status = ANY($2)`, [
    chargeId,
    reservingRefundStatuses,
  ])
  return BigInt(rows[0]!.sum)
}

export type RefundTransition = PayableTransition<'awaiting-signature'>

/** The queries refunds share with charges (`payable-queries.ts`), bound to the refunds table. */
export const refundQueries = payableQueries<RefundRow, 'awaiting-signature'>({ table: 'refunds', columns, awaiting: 'awaiting-signature', channel: chargeChangedChannel })
