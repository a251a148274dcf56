/**
 * What reconciliation keeps of payments the chain may have taken back (013_removal_evidence.sql), for
 * charges' and refunds' payments alike: removals the explorer reported and the chain has not yet
 * confirmed, and payments taken back recently enough that their return is still watched for.
 */
import type { Hex } from 'viem'
import type { SettlementPosition } from './settlement-position.js'
import type { Sql } from './open-database.js'

export type PaymentTable = 'charge_payments' | 'refund_payments'

/** A recorded payment, with the order reference that finds its charge or refund. */
export interface WatchedPayment extends SettlementPosition {
  table: PaymentTable
  orderReference: Hex
}

const tables = [
  { table: 'charge_payments', owner: 'charge_id', payable: 'charges' },
  { table: 'refund_payments', owner: 'refund_id', payable: 'refunds' },
] as const

/** Each table's payments that `where` picks, with their order reference. */
function selectWatched(where: (table: PaymentTable) => string): string {
  return tables
    .map(
      ({ table, owner, payable }) =>
        `SELECT '${table}' AS "table", p.tx_hash AS "txHash", p.block_number::int AS "blockNumber", p.log_index AS "logIndex", r.order_reference AS "orderReference"
         FROM ${table} p JOIN ${payable} r ON r.id = p.${owner} WHERE ${where(table)}`,
    )
    .join(' UNION ALL ')
}

/** Records the explorer's report that the settlement at this position was removed; false when no live payment is recorded there. */
export async function reportPaymentRemoved(sql: Sql, txHash: Hex, logIndex: number): Promise<boolean> {
  let found = false
  for (const { table } of tables) {
    const { rowCount } = await sql.query(`UPDATE ${table} SET removal_reported_at = now() WHERE tx_hash = $1 AND log_index = $2 AND removed_at IS NULL`, [
      txHash.toLowerCase(),
      logIndex,
    ])
    found ||= (rowCount ?? 0) > 0
  }
  return found
}

/** Live payments whose removal the explorer reported, oldest position first. */
export async function paymentsReportedRemoved(sql: Sql): Promise<WatchedPayment[]> {
  const { rows } = await sql.query<WatchedPayment>(`${selectWatched(() => 'p.removal_reported_at IS NOT NULL AND p.removed_at IS NULL')} ORDER BY "blockNumber", "logIndex"`)
  return rows
}

/** The chain still holds the payment: the explorer's report of its removal is set aside. */
export async function dismissRemovalReport(sql: Sql, payment: WatchedPayment): Promise<void> {
  await sql.query(`UPDATE ${payment.table} SET removal_reported_at = NULL WHERE tx_hash = $1 AND log_index = $2 AND removed_at IS NULL`, [payment.txHash, payment.logIndex])
}

/**
 * Payments the chain took back at block `since` or later whose transaction has no live payment recorded
 * since (the feed has not brought it back): watched for their return.
 */
export async function paymentsRemovedSince(sql: Sql, since: number): Promise<WatchedPayment[]> {
  const { rows } = await sql.query<WatchedPayment>(
    `SELECT DISTINCT ON ("txHash", "orderReference") * FROM (${selectWatched(
      (table) => `p.removed_at_block >= $1 AND NOT EXISTS (SELECT 1 FROM ${table} live WHERE live.tx_hash = p.tx_hash AND live.removed_at IS NULL)`,
    )}) watched`,
    [since],
  )
  return rows
}
