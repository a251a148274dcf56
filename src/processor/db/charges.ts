/**
 * Charges (PROCESSOR.md §4) as the merchant API creates and reads them and reconciliation moves them.
 * A state change takes the row with `lockCharge…` (FOR UPDATE) first, in the transaction that also writes
 * its webhook event, so the API (cancel), the expiry sweep and reconciliation never act on a stale state.
 * Every state change is announced on NOTIFY `charge_changed` (payload: the charge id) for the payment
 * pages' live status.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'

/** NOTIFY channel of charge state changes; the payload is the charge id. */
export const chargeChangedChannel = 'charge_changed'

export const chargeStatuses = ['awaiting-payment', 'confirming', 'settled', 'expired', 'canceled'] as const
export type ChargeStatus = (typeof chargeStatuses)[number]

/** Where a charge's paying settlement is on the chain. */
export interface SettlementPosition {
  txHash: Hex
  blockNumber: number
  logIndex: number
}

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
  createdAt: Date
  /** Set while confirming and once settled. */
  settlement: (SettlementPosition & { confirmations: number }) | null
}

export interface NewCharge extends ChargeTerms {
  id: string
  merchantId: string
  amount: bigint
  fees: bigint
  createdAt: Date
  ephemeralTokenHash: string
  ephemeralTokenExpiresAt: Date
}

const columns = `id, seq::text AS seq, merchant_id AS "merchantId", status, amount::text AS amount, token, currency, beneficiary,
  order_id AS "orderId", order_reference AS "orderReference", acquirer_id AS "acquirerId", fees::text AS fees,
  total_to_pay::text AS "totalToPay", deadline, created_at AS "createdAt",
  CASE WHEN tx_hash IS NULL THEN NULL ELSE json_build_object('txHash', tx_hash, 'blockNumber', block_number, 'logIndex', log_index, 'confirmations', confirmations) END AS settlement`

/** Stores a new charge awaiting payment; undefined when the merchant already has a charge for `orderId`. */
export async function insertCharge(sql: Sql, charge: NewCharge): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(
    `INSERT INTO charges (id, merchant_id, status, amount, token, currency, beneficiary, order_id, order_reference, acquirer_id, fees,
       total_to_pay, deadline, ephemeral_token_hash, ephemeral_token_expires_at, created_at)
     VALUES ($1, $2, 'awaiting-payment', $3, $4, $5, $6, $7, $8, $9, $10, $3::numeric + $10::numeric, $11, $12, $13, $14)
     ON CONFLICT (merchant_id, order_id) DO NOTHING
     RETURNING ${columns}`,
    [
      charge.id, charge.merchantId, charge.amount.toString(), charge.token, charge.currency, charge.beneficiary, charge.orderId,
      charge.orderReference, charge.acquirerId, charge.fees.toString(), charge.deadline, charge.ephemeralTokenHash, charge.ephemeralTokenExpiresAt, charge.createdAt,
    ],
  )
  return rows[0]
}

/** A merchant's charge; another merchant's is as unknown as a missing one. */
export async function findCharge(sql: Sql, merchantId: string, id: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE id = $1 AND merchant_id = $2`, [id, merchantId])
  return rows[0]
}

/** A charge whoever its merchant: the public payment page knows a charge by its id alone. */
export async function findChargeById(sql: Sql, id: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE id = $1`, [id])
  return rows[0]
}

export async function findChargeByOrderId(sql: Sql, merchantId: string, orderId: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE merchant_id = $1 AND order_id = $2`, [merchantId, orderId])
  return rows[0]
}

/** The charge, locked until the transaction ends. */
export async function lockCharge(sql: Sql, id: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE id = $1 FOR UPDATE`, [id])
  return rows[0]
}

/** The charge a settlement's order reference names, locked until the transaction ends. */
export async function lockChargeByOrderReference(sql: Sql, orderReference: Hex): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE order_reference = $1 FOR UPDATE`, [orderReference.toLowerCase()])
  return rows[0]
}

export interface ChargePage {
  status?: ChargeStatus
  /** Only charges older than this `seq` (the previous page's last). */
  beforeSeq?: string
  limit: number
}

/** A merchant's charges, newest first. */
export async function listCharges(sql: Sql, merchantId: string, page: ChargePage): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(
    `SELECT ${columns} FROM charges
     WHERE merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR seq < $3)
     ORDER BY charges.seq DESC LIMIT $4`,
    [merchantId, page.status ?? null, page.beforeSeq ?? null, page.limit],
  )
  return rows
}

/**
 * A state change of a locked charge. `awaiting-payment` is the way back after a reorg took the paying
 * settlement away; the settlement columns follow the status.
 */
export type ChargeTransition =
  | { to: 'confirming'; settlement: SettlementPosition; confirmations: number }
  | { to: 'settled'; confirmations: number }
  | { to: 'awaiting-payment' }
  | { to: 'expired' }
  | { to: 'canceled' }

const transitionSets: Record<ChargeTransition['to'], string> = {
  confirming: `tx_hash = $2, block_number = $3, log_index = $4, confirmations = $5, confirming_at = now()`,
  settled: `confirmations = $2, settled_at = now()`,
  'awaiting-payment': `tx_hash = NULL, block_number = NULL, log_index = NULL, confirmations = NULL, confirming_at = NULL, settled_at = NULL`,
  expired: `expired_at = now(), ephemeral_token_hash = NULL, ephemeral_token_expires_at = NULL`,
  canceled: `canceled_at = now(), ephemeral_token_hash = NULL, ephemeral_token_expires_at = NULL`,
}

export async function transitionCharge(sql: Sql, id: string, transition: ChargeTransition): Promise<ChargeRow> {
  const values: unknown[] =
    transition.to === 'confirming'
      ? [transition.settlement.txHash, transition.settlement.blockNumber, transition.settlement.logIndex, transition.confirmations]
      : transition.to === 'settled'
        ? [transition.confirmations]
        : []
  const { rows } = await sql.query<ChargeRow>(
    `WITH changed AS (UPDATE charges SET status = '${transition.to}', updated_at = now(), ${transitionSets[transition.to]} WHERE id = $1 RETURNING *),
       announced AS (SELECT pg_notify('${chargeChangedChannel}', id) FROM changed)
     SELECT ${columns} FROM changed, announced`,
    [id, ...values],
  )
  return rows[0]!
}

/** The paying settlement was mined again at another position (a reorg): the charge keeps its status and follows it. */
export async function moveChargeSettlement(sql: Sql, id: string, position: SettlementPosition): Promise<void> {
  await sql.query(`UPDATE charges SET tx_hash = $2, block_number = $3, log_index = $4, updated_at = now() WHERE id = $1 AND tx_hash IS NOT NULL`, [
    id,
    position.txHash,
    position.blockNumber,
    position.logIndex,
  ])
}

/** The confirmation count of a confirming charge, as of the latest head. */
export async function setConfirmations(sql: Sql, id: string, confirmations: number): Promise<void> {
  await sql.query(`UPDATE charges SET confirmations = $2, updated_at = now() WHERE id = $1 AND status = 'confirming' AND confirmations <> $2`, [id, confirmations])
}

/** Every confirming charge, oldest settlement first. */
export async function confirmingCharges(sql: Sql): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(`SELECT ${columns} FROM charges WHERE status = 'confirming' ORDER BY block_number, log_index`)
  return rows
}

/** Whether a charge awaiting payment is past its deadline on the wall clock (the sweep's cheap first look). */
export async function hasOverdueCharges(sql: Sql): Promise<boolean> {
  const { rows } = await sql.query(`SELECT 1 FROM charges WHERE status = 'awaiting-payment' AND deadline <= now() LIMIT 1`)
  return rows.length > 0
}

/**
 * Up to `limit` charges still awaiting payment with a deadline past on the wall clock and before
 * `passed`, locked; rows another transaction holds are skipped (they are being changed, and the next
 * sweep looks again).
 */
export async function lockOverdueCharges(sql: Sql, limit: number, passed: Date): Promise<ChargeRow[]> {
  const { rows } = await sql.query<ChargeRow>(
    `SELECT ${columns} FROM charges WHERE status = 'awaiting-payment' AND deadline <= now() AND deadline < $2 ORDER BY deadline LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit, passed],
  )
  return rows
}

/** Replaces the charge's payment-page token (a fresh page load, an idempotent replay). */
export async function setEphemeralToken(sql: Sql, id: string, hash: string, expiresAt: Date): Promise<void> {
  await sql.query(`UPDATE charges SET ephemeral_token_hash = $2, ephemeral_token_expires_at = $3 WHERE id = $1`, [id, hash, expiresAt])
}

/**
 * A payment page's fresh token, replacing the charge's, unless a page showed one less than `minIntervalMs`
 * ago that is still unused and unexpired (then false, and that page's link keeps working). Across
 * replicas: the UPDATE takes the row.
 */
export async function showPaymentLink(sql: Sql, id: string, hash: string, expiresAt: Date, minIntervalMs: number): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE charges SET ephemeral_token_hash = $2, ephemeral_token_expires_at = $3, payment_link_shown_at = now()
     WHERE id = $1 AND (payment_link_shown_at IS NULL OR payment_link_shown_at <= now() - make_interval(secs => $4::double precision / 1000)
       OR ephemeral_token_hash IS NULL OR ephemeral_token_expires_at <= now())`,
    [id, hash, expiresAt, minIntervalMs],
  )
  return rowCount === 1
}

/**
 * Uses up the payment-page token: the charge when `hash` is its current, unexpired token (which is then
 * gone), undefined otherwise. Single use holds across replicas: the UPDATE takes the row.
 */
export async function consumeEphemeralToken(sql: Sql, id: string, hash: string): Promise<ChargeRow | undefined> {
  const { rows } = await sql.query<ChargeRow>(
    `UPDATE charges SET ephemeral_token_hash = NULL, ephemeral_token_expires_at = NULL
     WHERE id = $1 AND ephemeral_token_hash = $2 AND ephemeral_token_expires_at > now()
     RETURNING ${columns}`,
    [id, hash],
  )
  return rows[0]
}
