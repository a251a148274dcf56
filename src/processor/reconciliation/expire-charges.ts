/**
 * The expiry sweep: charges still awaiting payment whose deadline the applied feed has passed on the
 * chain's clock (`feed-time.ts`) become expired (`charge.expired`); a payment mined before the deadline
 * therefore always reaches its charge first. Rows locked elsewhere (a cancel, a payment being applied)
 * are skipped and looked at again next sweep.
 */
import type pg from 'pg'
import { lockOverdueCharges } from '../db/index.js'
import { runTransaction } from '../db/index.js'
import { changeCharge } from '../charges/index.js'

const BATCH = 100

/** Expires every charge awaiting payment with a deadline before `passedMs` (and the wall clock); returns how many. */
export async function expireOverdueCharges(client: pg.PoolClient, widgetBaseUrl: string, passedMs: number): Promise<number> {
  let expired = 0
  for (;;) {
    const batch = await runTransaction(client, async (tx) => {
      const overdue = await lockOverdueCharges(tx, BATCH, new Date(passedMs))
      for (const charge of overdue) await changeCharge(tx, charge, { to: 'expired' }, widgetBaseUrl)
      return overdue.length
    })
    expired += batch
    if (batch < BATCH) return expired
  }
}
