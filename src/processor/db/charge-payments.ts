/**
 * Every settlement reconciliation saw for a charge's order reference (PROCESSOR.md §4: recorded, never
 * lost), with what it did: paid the charge, disagreed with it, came late or came second. A reorg marks a
 * row removed rather than deleting it; the same settlement mined again is a new row.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'

export type PaymentOutcome = 'matched' | 'mismatched' | 'late' | 'second'
export type Mismatch = 'wrong-token' | 'wrong-recipient' | 'underpaid'

export interface NewChargePayment {
  chargeId: string
  txHash: Hex
  blockNumber: number
  logIndex: number
  blockTimestamp: Date
  token: Hex
  payer: Hex
  recipient: Hex
  amount: string
  fee: string
  acquirerId: Hex
  outcome: PaymentOutcome
  mismatch: Mismatch[]
  beforeDeadline: boolean
}

export interface ChargePaymentRow extends NewChargePayment {
  id: string
  seenAt: Date
  removedAt: Date | null
}

const columns = `id::text AS id, charge_id AS "chargeId", tx_hash AS "txHash", block_number::int AS "blockNumber", log_index AS "logIndex",
  block_timestamp AS "blockTimestamp", token, payer, recipient, amount::text AS amount, fee::text AS fee, acquirer_id AS "acquirerId",
  outcome, mismatch, before_deadline AS "beforeDeadline", seen_at AS "seenAt", removed_at AS "removedAt"`

/** Records a settlement; undefined when this settlement is already recorded (and not removed). */
export async function insertChargePayment(sql: Sql, payment: NewChargePayment): Promise<ChargePaymentRow | undefined> {
  const { rows } = await sql.query<ChargePaymentRow>(
    `INSERT INTO charge_payments (charge_id, tx_hash, block_number, log_index, block_timestamp, token, payer, recipient, amount, fee,
       acquirer_id, outcome, mismatch, before_deadline)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (tx_hash, log_index) WHERE removed_at IS NULL DO NOTHING
     RETURNING ${columns}`,
    [
      payment.chargeId, payment.txHash, payment.blockNumber, payment.logIndex, payment.blockTimestamp, payment.token, payment.payer,
      payment.recipient, payment.amount, payment.fee, payment.acquirerId, payment.outcome, payment.mismatch, payment.beforeDeadline,
    ],
  )
  return rows[0]
}

/**
 * Marks the recorded settlement at this position removed; undefined when none is recorded. `atBlock`, the
 * head when the chain took it back (a reorg, not a move), starts the watch for its return (`payment-removals.ts`).
 */
export async function markChargePaymentRemoved(sql: Sql, txHash: Hex, logIndex: number, atBlock?: number): Promise<ChargePaymentRow | undefined> {
  const { rows } = await sql.query<ChargePaymentRow>(
    `UPDATE charge_payments SET removed_at = now(), removed_at_block = $3 WHERE tx_hash = $1 AND log_index = $2 AND removed_at IS NULL RETURNING ${columns}`,
    [txHash.toLowerCase(), logIndex, atBlock ?? null],
  )
  return rows[0]
}

/** A charge's payments in the order they were seen, removed ones included. */
export async function paymentsOfCharge(sql: Sql, chargeId: string): Promise<ChargePaymentRow[]> {
  const { rows } = await sql.query<ChargePaymentRow>(`SELECT ${columns} FROM charge_payments WHERE charge_id = $1 ORDER BY charge_payments.id`, [chargeId])
  return rows
}

/**
 * The earliest live payment that would have paid the charge had another not come first: after a reorg
 * takes the paying settlement away, it pays the charge instead.
 */
export async function nextPayingPayment(sql: Sql, chargeId: string): Promise<ChargePaymentRow | undefined> {
  const { rows } = await sql.query<ChargePaymentRow>(
    `SELECT ${columns} FROM charge_payments
     WHERE charge_id = $1 AND outcome = 'second' AND mismatch = '{}' AND removed_at IS NULL
     ORDER BY block_number, log_index LIMIT 1`,
    [chargeId],
  )
  return rows[0]
}

export async function setPaymentOutcome(sql: Sql, id: string, outcome: PaymentOutcome): Promise<void> {
  await sql.query(`UPDATE charge_payments SET outcome = $2 WHERE id = $1`, [id, outcome])
}
