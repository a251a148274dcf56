/**
 * The expiry sweep: charges still awaiting payment at their deadline become expired (`charge.expired`).
 * Rows locked elsewhere (a cancel, a payment being applied) are skipped and looked at again next sweep.
 * A payment seen after the sweep is a late payment, even when it was mined before the deadline (the
 * payment record says so: `beforeDeadline`).
 */
import type pg from 'pg'
import { lockOverdueCharges } from '../db/index.js'
import { runTransaction } from '../db/index.js'
import { changeCharge } from '../charges/index.js'

const BATCH = 100

/** Expires every overdue charge; returns how many. */
export async function expireOverdueCharges(client: pg.PoolClient, widgetBaseUrl: string): Promise<number> {
  let expired = 0
  for (;;) {
    const batch = await runTransaction(client, async (tx) => {
      const overdue = await lockOverdueCharges(tx, BATCH)
      for (const charge of overdue) await changeCharge(tx, charge, { to: 'expired' }, widgetBaseUrl)
      return overdue.length
    })
    expired += batch
    if (batch < BATCH) return expired
  }
}
