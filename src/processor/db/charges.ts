/**
 * Charges (PROCESSOR.md §4) as the merchant API creates and reads them and reconciliation moves them.
 * A state change takes the row with `lockCharge…` (FOR UPDATE) first, in the transaction that also writes
 * its webhook event, so the API (cancel), the expiry sweep and reconciliation never act on a stale state.
 * Every state change is announced on NOTIFY `charge_changed` (payload: the charge id) for the payment
 * pages' live status.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'
import { payableQueries, type PayableTransition } from './payable-queries.js'
import type { SettlementPosition } from './settlement-position.js'

/** NOTIFY channel of charge state changes; the payload is the charge id. */
export const chargeChangedChannel = 'charge_changed'

export const chargeStatuses = ['awaiting-payment', 'confirming', 'settled', 'partially-refunded', 'refunded', 'expired', 'canceled'] as const
export type ChargeStatus = (typeof chargeStatuses)[number]

/** What a merchant asked for, as stored. */
interface ChargeTerms {
  token: Hex
  currency: string
  beneficiary: Hex
  orderId: string
  orderReference: Hex
  acquirerId: Hex
  deadline: Date
}

export interface ChargeRow extends ChargeTerms {
  id: string
  seq: string
  merchantId: string
  status: ChargeStatus
  amount: string
  fees: string
  totalToPay: string
  /** The sum of its settled refunds (refunds.ts). */
  amountRefunded: string
  createdAt: Date
  /** Set while confirming and once settled (refunded or not). */
  settlement: (SettlementPosition & { confirmations: number }) | null
  /** The payment link a payer made it from (payment-links.ts), or null. */
  paymentLinkId: string | null
}

export interface NewCharge extends ChargeTerms {
  id: string
  merchantId: string
  amount: bigint
  fees: bigint
  createdAt: Date
  ephemeralTokenHash: string
  ephemeralTokenExpiresAt: Date
  paymentLinkId?: string
}

const columns = `id, seq::text AS seq, merchant_id AS "merchantId", status, amount::text AS amount, token, currency, beneficiary,
  order_id AS "orderId", order_reference AS "orderReference", acquirer_id AS "acquirerId", fees::text AS fees,
  total_to_pay::text AS "totalToPay", amount_refunded::text AS "amountRefunded", deadline, created_at AS "createdAt", payment_link_id AS "paymentLinkId",
  CASE WHEN tx_hash IS NULL THEN NULL ELSE json_build_object('txHash', tx_hash, 'blockNumber', block_number, 'logIndex', log_index, 'confirmations', confirmations) END AS settlement`

/** The charge's columns as a `ChargeRow`, for queries of charges kept in other files. */
export const chargeColumns = columns

/** Stores a new charge awaiting payment; undefined when the merchant already has a charge for `orderId`. */
export async function insertCharge(sql: Sql, charge: NewCharge): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(
    `INSERT INTO charges (id, merchant_id, status, amount, token, currency, beneficiary, order_id, order_reference, acquirer_id, fees,
       total_to_pay, deadline, ephemeral_token_hash, ephemeral_token_expires_at, created_at, payment_link_id)
     VALUES ($1, $2, 'awaiting-payment', $3, $4, $5, $6, $7, $8, $9, $10, $3::numeric + $10::numeric, $11, $12, $13, $14, $15)
     ON CONFLICT (merchant_id, order_id) DO NOTHING
     RETURNING ${columns}`,
    [
      charge.id, charge.merchantId, charge.amount.toString(), charge.token, charge.currency, charge.beneficiary, charge.orderId,
      charge.orderReference, charge.acquirerId, charge.fees.toString(), charge.deadline, charge.ephemeralTokenHash, charge.ephemeralTokenExpiresAt, charge.createdAt,
      charge.paymentLinkId ?? null,
    ],
  )
  return rows[0]
}

export async function findChargeByOrderId(sql: Sql, merchantId: string, orderId: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE merchant_id = $1 AND order_id = $2`, [merchantId, orderId])
  return rows[0]
}

export interface ChargeFilter {
  status?: ChargeStatus
  /** Created at or after this time. */
  from?: Date
  /** Created before this time. */
  to?: Date
  beneficiary?: Hex
  orderId?: string
  paymentLinkId?: string
}

export interface ChargePage extends ChargeFilter {
  /** Only charges older than this `seq` (the previous page's last). */
  beforeSeq?: string
  limit: number
}

/** A merchant's charges, newest first, filtered (the list API and the CSV reports page through the same query). */
export async function listCharges(sql: Sql, merchantId: string, page: ChargePage): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(
    `SELECT ${columns} FROM charges
     WHERE merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR seq < $3)
       AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6)
       AND ($7::text IS NULL OR beneficiary = $7) AND ($8::text IS NULL OR order_id = $8) AND ($9::text IS NULL OR payment_link_id = $9)
     ORDER BY charges.seq DESC LIMIT $4`,
    [merchantId, page.status ?? null, page.beforeSeq ?? null, page.limit, page.from ?? null, page.to ?? null, page.beneficiary?.toLowerCase() ?? null, page.orderId ?? null, page.paymentLinkId ?? null],
  )
  return rows
}

/**
 * A state change of a locked charge. `awaiting-payment` is the way back after a reorg took the paying
 * settlement away; the settlement columns follow the status.
 */
export type ChargeTransition = PayableTransition<'awaiting-payment'>

/**
 * The queries charges share with refunds (`payable-queries.ts`), bound to the charges table: transitions,
 * confirmations, the expiry sweep's overdue rows and the payment-page tokens.
 */
export const chargeQueries = payableQueries<ChargeRow, 'awaiting-payment'>({ table: 'charges', columns, awaiting: 'awaiting-payment', channel: chargeChangedChannel })

export const findCharge = chargeQueries.find
export const findChargeById = chargeQueries.findById
export const lockCharge = chargeQueries.lock
export const lockChargeByOrderReference = chargeQueries.lockByOrderReference
