/**
 * The relayer guard's shared state: the active submitter writes what it sees of its relayer account
 * (balance against the minimum, and the runway in payments) and announces changes; every gateway reads it to refuse new work with
 * RELAYER_UNAVAILABLE and to answer a degraded /health. The row is rewritten every heartbeat, so its age
 * tells whether any submitter is still alive to send what the gateways accept.
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'
import { channels } from './submissions.js'

export interface RelayerStatus {
  relayer: Hex
  balance: string
  minimum: string
  available: boolean
  /** Payments the balance still pays for (decimal string); null until measured. */
  runwayPayments?: string | null
  /** The runway is below the warning level (RELAYER_RUNWAY_WARNING_PAYMENTS): time to top up. */
  runwayLow?: boolean
  /** ISO time of the submitter's last look. */
  updatedAt: string
}

export async function writeRelayerStatus(sql: Sql, status: Omit<RelayerStatus, 'updatedAt'>, announce: boolean): Promise<void> {
  await sql.query(
    `INSERT INTO relayer_status (relayer, balance, minimum, available, runway_payments, runway_low, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (relayer) DO UPDATE SET balance = $2, minimum = $3, available = $4, runway_payments = $5, runway_low = $6, updated_at = now()`,
    [status.relayer, status.balance, status.minimum, status.available, status.runwayPayments ?? null, status.runwayLow ?? false],
  )
  if (announce) await sql.query('SELECT pg_notify($1, $2)', [channels.relayer, JSON.stringify(status)])
}

export interface StoredRelayerStatus extends RelayerStatus {
  /** How long ago it was written, on the database's clock (so no two hosts' clocks are compared). */
  ageMs: number
}

/** The most recently updated relayer (one active submitter per key; normally there is one key). */
export async function readRelayerStatus(sql: Sql): Promise<StoredRelayerStatus | undefined> {
  const { rows } = await sql.query(
    `SELECT relayer, balance::text, minimum::text, available, runway_payments::text AS "runwayPayments", runway_low AS "runwayLow", to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt",
            (extract(epoch FROM clock_timestamp() - updated_at) * 1000)::float8 AS "ageMs"
     FROM relayer_status ORDER BY updated_at DESC LIMIT 1`,
  )
  return rows[0] as StoredRelayerStatus | undefined
}
