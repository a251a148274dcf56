/**
 * One connection per wallet address across every gateway process: a gateway that binds a connection to
 * an address announces it, and the others close their older connection of that address (4001).
 */
import type { Hex } from 'viem'
import type { Sql } from './open-database.js'

export const claimChannel = 'gateway_connection_claimed'

export interface ConnectionClaim {
  address: Hex
  /** When the connection was bound, ms since the epoch. */
  at: number
  /** The announcing gateway process. */
  instance: string
}

export async function announceClaim(sql: Sql, claim: ConnectionClaim): Promise<void> {
  await sql.query('SELECT pg_notify($1, $2)', [claimChannel, JSON.stringify(claim)])
}
