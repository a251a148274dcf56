/**
 * What charges and refunds share as tables (004_charges.sql, 009_refunds.sql): each is a payment request
 * with a payment page token, a status that the paying settlement moves, and the settlement's position and
 * confirmations. The queries on those columns are written once here, for either table; `charges.ts` and
 * `refunds.ts` bind them to their table, columns and the name of their awaiting status.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'
import { paymentTableOf } from './payments.js'
import type { PayableTableName, SettlementPosition } from './settlement-position.js'

/** A state change: `awaiting` is the status before payment, and the way back after a reorg took the settlement away. */
export type PayableTransition<Awaiting extends string> =
  | { to: 'confirming'; settlement: SettlementPosition; confirmations: number }
  | { to: 'settled'; confirmations: number }
  | { to: Awaiting }
  | { to: 'expired' }
  | { to: 'canceled' }

/** Both payment-page tokens gone: the current one and an idempotent replay's (migration 017). */
const NO_TOKENS = 'ephemeral_token_hash = NULL, ephemeral_token_expires_at = NULL, replay_token_hash = NULL, replay_token_expires_at = NULL'

const transitionSets = {
  confirming: `tx_hash = $2, block_number = $3, log_index = $4, confirmations = $5, confirming_at = now()`,
  settled: `confirmations = $2, settled_at = now()`,
  awaiting: `tx_hash = NULL, block_number = NULL, log_index = NULL, confirmations = NULL, confirming_at = NULL, settled_at = NULL`,
  expired: `expired_at = now(), ${NO_TOKENS}`,
  canceled: `canceled_at = now(), ${NO_TOKENS}`,
}

export interface PayableTable {
  table: PayableTableName
  /** The SELECT list that makes a row. */
  columns: string
  awaiting: string
  /** NOTIFY channel of every state change; the payload is the row's id. */
  channel: string
}

export function payableQueries<Row, Awaiting extends string>({ table, columns, awaiting, channel }: PayableTable & { awaiting: Awaiting }) {
  const payments = paymentTableOf(table)
  return {
    /** A merchant's row; another merchant's is as unknown as a missing one. */
    async find(sql: Sql, merchantId: string, id: string): Promise<Row | undefined> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE id = $1 AND merchant_id = $2`, [id, merchantId])).rows[0] as Row | undefined
    },

    /** A row whoever its merchant: a public payment page knows it by its id alone. */
    async findById(sql: Sql, id: string): Promise<Row | undefined> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE id = $1`, [id])).rows[0] as Row | undefined
    },

    /** The row, locked until the transaction ends. */
    async lock(sql: Sql, id: string): Promise<Row | undefined> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE id = $1 FOR UPDATE`, [id])).rows[0] as Row | undefined
    },

    /** The row a settlement's order reference names, locked until the transaction ends. */
    async lockByOrderReference(sql: Sql, orderReference: Hex): Promise<Row | undefined> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE order_reference = $1 FOR UPDATE`, [orderReference.toLowerCase()])).rows[0] as Row | undefined
    },

    async transition(sql: Sql, id: string, transition: PayableTransition<Awaiting>): Promise<Row> {
      const values: unknown[] =
        'settlement' in transition
          ? [transition.settlement.txHash, transition.settlement.blockNumber, transition.settlement.logIndex, transition.confirmations]
          : 'confirmations' in transition
            ? [transition.confirmations]
            : []
      const set = transitionSets[transition.to === awaiting ? 'awaiting' : (transition.to as Exclude<keyof typeof transitionSets, 'awaiting'>)]
      const { rows } = await sql.query(
        `WITH changed AS (UPDATE ${table} SET status = '${transition.to}', updated_at = now(), ${set} WHERE id = $1 RETURNING *),
           announced AS (SELECT pg_notify('${channel}', id) FROM changed)
         SELECT ${columns} FROM changed, announced`,
        [id, ...values],
      )
      return rows[0] as Row
    },

    /** The settlement was mined again at another position (a reorg): the row keeps its status and follows it. */
    async moveSettlement(sql: Sql, id: string, position: SettlementPosition): Promise<void> {
      await sql.query(`UPDATE ${table} SET tx_hash = $2, block_number = $3, log_index = $4, updated_at = now() WHERE id = $1 AND tx_hash IS NOT NULL`, [
        id,
        position.txHash,
        position.blockNumber,
        position.logIndex,
      ])
    },

    /** The confirmation count of a confirming row, as of the latest head. */
    async setConfirmations(sql: Sql, id: string, confirmations: number): Promise<void> {
      await sql.query(`UPDATE ${table} SET confirmations = $2, updated_at = now() WHERE id = $1 AND status = 'confirming' AND confirmations <> $2`, [id, confirmations])
    },

    /** Every confirming row, oldest settlement first. */
    async confirming(sql: Sql): Promise<Row[]> {
      return (await sql.query(`SELECT ${columns} FROM ${table} WHERE status = 'confirming' ORDER BY block_number, log_index`)).rows as Row[]
    },

    /** Whether a row still awaiting payment is past its deadline on the wall clock (the sweep's cheap first look). */
    async hasOverdue(sql: Sql): Promise<boolean> {
      return (await sql.query(`SELECT 1 FROM ${table} WHERE status = '${awaiting}' AND deadline <= now() LIMIT 1`)).rows.length > 0
    },

    /**
     * Up to `limit` rows still awaiting payment with a deadline past on the wall clock and before `passed`,
     * locked; rows another transaction holds are skipped (they are being changed, and the next sweep looks again).
     * A row whose paying settlement the chain took back at block `watchedSince` or later is not overdue: that
     * settlement is still watched for its return (`payment-removals.ts`).
     */
    async lockOverdue(sql: Sql, limit: number, passed: Date, watchedSince: number): Promise<Row[]> {
      const { rows } = await sql.query(
        `SELECT ${columns} FROM ${table} WHERE status = '${awaiting}' AND deadline <= now() AND deadline < $2
           AND NOT EXISTS (SELECT 1 FROM ${payments.table} p WHERE p.${payments.owner} = ${table}.id AND p.outcome = 'matched' AND p.removed_at_block >= $3)
         ORDER BY deadline LIMIT $1 FOR UPDATE OF ${table} SKIP LOCKED`,
        [limit, passed, watchedSince],
      )
      return rows as Row[]
    },

    /**
     * An idempotent replay's token, beside the current one rather than in its place: the first answer's
     * token keeps working until used or expired. A later replay's replaces an earlier replay's.
     */
    async setReplayToken(sql: Sql, id: string, hash: string, expiresAt: Date): Promise<void> {
      await sql.query(`UPDATE ${table} SET replay_token_hash = $2, replay_token_expires_at = $3 WHERE id = $1`, [id, hash, expiresAt])
    },

    /**
     * A payment page's fresh token, replacing the row's, unless a page showed one less than `minIntervalMs`
     * ago that is still unused and unexpired (then false, and that page's link keeps working). Across
     * replicas: the UPDATE takes the row.
     */
    async showPaymentLink(sql: Sql, id: string, hash: string, expiresAt: Date, minIntervalMs: number): Promise<boolean> {
      const { rowCount } = await sql.query(
        `UPDATE ${table} SET ephemeral_token_hash = $2, ephemeral_token_expires_at = $3, payment_link_shown_at = now()
         WHERE id = $1 AND (payment_link_shown_at IS NULL OR payment_link_shown_at <= now() - make_interval(secs => $4::double precision / 1000)
           OR ephemeral_token_hash IS NULL OR ephemeral_token_expires_at <= now())`,
        [id, hash, expiresAt, minIntervalMs],
      )
      return rowCount === 1
    },

    /**
     * Uses up the payment-page token: the row when `hash` is its current or its replay's unexpired token
     * (both are then gone: one session per row), undefined otherwise. Single use holds across replicas:
     * the UPDATE takes the row.
     */
    async consumeEphemeralToken(sql: Sql, id: string, hash: string): Promise<Row | undefined> {
      const { rows } = await sql.query(
        `UPDATE ${table} SET ${NO_TOKENS}
         WHERE id = $1 AND ((ephemeral_token_hash = $2 AND ephemeral_token_expires_at > now()) OR (replay_token_hash = $2 AND replay_token_expires_at > now()))
         RETURNING ${columns}`,
        [id, hash],
      )
      return rows[0] as Row | undefined
    },
  }
}

export type PayableQueries<Row, Awaiting extends string> = ReturnType<typeof payableQueries<Row, Awaiting>>
