/**
 * The expiry sweep: charges still awaiting payment whose deadline the applied feed has passed on the
 * chain's clock (`feed-time.ts`) become expired (`charge.expired`); a payment mined before the deadline
 * therefore always reaches its charge first. Rows locked elsewhere (a cancel, a payment being applied)
 * are skipped and looked at again next sweep. Refunds expire the same way (`expire-refunds.ts`).
 */
import type pg from 'pg'
import { lockOverdueCharges, runTransaction, type Sql } from '../db/index.js'
import { changeCharge } from '../charges/index.js'

const BATCH = 100

/**
 * Expires every charge awaiting payment with a deadline before `passedMs` (and the wall clock), but those
 * whose paying settlement, taken back at block `watchedSince` or later, may still return; returns how many.
 */
export function expireOverdueCharges(client: pg.PoolClient, widgetBaseUrl: string, passedMs: number, watchedSince: number): Promise<number> {
  return expireInBatches(client, passedMs, watchedSince, lockOverdueCharges, (tx, charge) => changeCharge(tx, charge, { to: 'expired' }, widgetBaseUrl))
}

/** Locks up to BATCH overdue rows and expires them, one transaction per batch, until a batch comes back short. */
export async function expireInBatches<Row>(
  client: pg.PoolClient,
  passedMs: number,
  watchedSince: number,
  lockOverdue: (sql: Sql, limit: number, passed: Date, watchedSince: number) => Promise<Row[]>,
  expire: (tx: Sql, row: Row) => Promise<unknown>,
): Promise<number> {
  let expired = 0
  for (;;) {
    const batch = await runTransaction(client, async (tx) => {
      const overdue = await lockOverdue(tx, BATCH, new Date(passedMs), watchedSince)
      for (const row of overdue) await expire(tx, row)
      return overdue.length
    })
    expired += batch
    if (batch < BATCH) return expired
  }
}
