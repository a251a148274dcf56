/**
 * Reconciliation's place in the explorer's live feed (PROCESSOR.md §0): one row holding the cursor of
 * the last settlement (or removal) whose charge changes are committed. It is written in the transaction
 * that makes those changes, so a restart resumes exactly after them: nothing applied twice, nothing lost.
 */
import type { Sql } from './open-database.js'

/** The stored cursor, locked until the transaction ends; undefined before reconciliation first ran. */
export async function lockReconciliationCursor(sql: Sql): Promise<string | undefined> {
  const { rows } = await sql.query<{ cursor: string }>(`SELECT cursor FROM reconciliation_cursor FOR UPDATE`)
  return rows[0]?.cursor
}

export async function readReconciliationCursor(sql: Sql): Promise<string | undefined> {
  const { rows } = await sql.query<{ cursor: string }>(`SELECT cursor FROM reconciliation_cursor`)
  return rows[0]?.cursor
}

export async function saveReconciliationCursor(sql: Sql, cursor: string): Promise<void> {
  await sql.query(
    `INSERT INTO reconciliation_cursor (id, cursor) VALUES (true, $1) ON CONFLICT (id) DO UPDATE SET cursor = $1, updated_at = now()`,
    [cursor],
  )
}

/**
 * The single active reconciler per database holds this session-level advisory lock on a connection of
 * its own; the lock dies with the connection.
 */
export async function tryReconcilerLock(sql: Sql): Promise<boolean> {
  const { rows } = await sql.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended('checkout:reconciler', 0)) AS locked`)
  return rows[0]?.locked === true
}
