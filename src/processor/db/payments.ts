/**
 * Every settlement reconciliation saw for a payable's order reference (PROCESSOR.md §4, issue 23:
 * recorded, never lost), with what it did: paid the charge or refund, disagreed with it, came late or came
 * second. A reorg marks a row removed rather than deleting it; the same settlement mined again is a new
 * row. Charges (charge_payments) and refunds (refund_payments) keep them in tables of the same shape; a
 * charge's also record the block time, the acquirer and whether it came before the deadline.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'
import type { PayableTableName, SettlementPosition } from './settlement-position.js'

export type PaymentOutcome = 'matched' | 'mismatched' | 'late' | 'second'
export type Mismatch = 'wrong-token' | 'wrong-recipient' | 'underpaid'

export interface NewPayment extends SettlementPosition {
  /** The charge's or refund's id. */
  payableId: string
  token: Hex
  payer: Hex
  recipient: Hex
  amount: string
  fee: string
  outcome: PaymentOutcome
  mismatch: Mismatch[]
}

/** What only a charge's payments record. */
export interface ChargePaymentFacts {
  blockTimestamp: Date
  acquirerId: Hex
  beforeDeadline: boolean
}

export interface PaymentRow extends NewPayment {
  id: string
  removedAt: Date | null
}

export type ChargePaymentRow = PaymentRow & ChargePaymentFacts & { seenAt: Date }
export type NewChargePayment = NewPayment & ChargePaymentFacts

const common = `id::text AS id, tx_hash AS "txHash", block_number::int AS "blockNumber", log_index AS "logIndex",
  token, payer, recipient, amount::text AS amount, fee::text AS fee, outcome, mismatch, removed_at AS "removedAt"`

/** Each payable table's payments: the table, the column naming their payable, and what else they hold. */
const tables = {
  charges: {
    table: 'charge_payments',
    owner: 'charge_id',
    columns: `charge_id AS "payableId", ${common}, block_timestamp AS "blockTimestamp", acquirer_id AS "acquirerId", before_deadline AS "beforeDeadline", seen_at AS "seenAt"`,
    facts: { block_timestamp: 'blockTimestamp', acquirer_id: 'acquirerId', before_deadline: 'beforeDeadline' } as Record<string, string>,
  },
  refunds: { table: 'refund_payments', owner: 'refund_id', columns: `refund_id AS "payableId", ${common}`, facts: {} as Record<string, string> },
} as const

export const paymentTableOf = (payable: PayableTableName) => tables[payable]

export function paymentQueries<Row extends PaymentRow, New extends NewPayment>(payable: PayableTableName) {
  const { table, owner, columns, facts } = tables[payable]
  const names = [owner, 'tx_hash', 'block_number', 'log_index', 'token', 'payer', 'recipient', 'amount', 'fee', 'outcome', 'mismatch', ...Object.keys(facts)]
  return {
    /** Records a settlement; undefined when this settlement is already recorded (and not removed). */
    async insert(sql: Sql, payment: New): Promise<Row | undefined> {
      const values = [
        payment.payableId, payment.txHash, payment.blockNumber, payment.logIndex, payment.token, payment.payer, payment.recipient, payment.amount, payment.fee,
        payment.outcome, payment.mismatch, ...Object.values(facts).map((key) => (payment as unknown as Record<string, unknown>)[key]),
      ]
      const { rows } = await sql.query(
        `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (tx_hash, log_index) WHERE removed_at IS NULL DO NOTHING
         RETURNING ${columns}`,
        values,
      )
      return rows[0] as Row | undefined
    },

    /**
     * Marks the recorded settlement at this position removed; undefined when none is recorded. `atBlock`, the
     * head when the chain took it back (a reorg, not a move), starts the watch for its return (`payment-removals.ts`).
     */
    async markRemoved(sql: Sql, txHash: Hex, logIndex: number, atBlock?: number): Promise<Row | undefined> {
      const { rows } = await sql.query(
        `UPDATE ${table} SET removed_at = now(), removed_at_block = $3 WHERE tx_hash = $1 AND log_index = $2 AND removed_at IS NULL RETURNING ${columns}`,
        [txHash.toLowerCase(), logIndex, atBlock ?? null],
      )
      return rows[0] as Row | undefined
    },

    /** A payable's payments in the order they were seen, removed ones included. */
    async of(sql: Sql, payableId: string): Promise<Row[]> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE ${owner} = $1 ORDER BY ${table}.id`, [payableId])).rows as Row[]
    },

    /**
     * The earliest live payment that would have paid the payable had another not come first: after a reorg
     * takes the paying settlement away, it pays the payable instead.
     */
    async nextPaying(sql: Sql, payableId: string): Promise<Row | undefined> {
      const { rows } = await sql.query(
        `SELECT ${columns} FROM ${table}
         WHERE ${owner} = $1 AND outcome = 'second' AND mismatch = '{}' AND removed_at IS NULL
         ORDER BY block_number, log_index LIMIT 1`,
        [payableId],
      )
      return rows[0] as Row | undefined
    },

    async setOutcome(sql: Sql, id: string, outcome: PaymentOutcome): Promise<void> {
      await sql.query(`UPDATE ${table} SET outcome = $2 WHERE id = $1`, [id, outcome])
    },
  }
}

export const chargePayments = paymentQueries<ChargePaymentRow, NewChargePayment>('charges')
export const refundPayments = paymentQueries<PaymentRow, NewPayment>('refunds')

/** A charge's payments in the order they were seen, removed ones included. */
export const paymentsOfCharge = chargePayments.of
export type PaymentQueries<Row extends PaymentRow, New extends NewPayment> = ReturnType<typeof paymentQueries<Row, New>>
