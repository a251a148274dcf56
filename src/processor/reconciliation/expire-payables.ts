/**
 * The expiry sweep, for every kind of payable (`payable-kinds.ts`): charges and refunds still awaiting
 * payment whose deadline the applied feed has passed on the chain's clock (`feed-time.ts`) become expired
 * (`charge.expired`, `refund.expired`; what an expired refund reserved of its charge can be refunded
 * again); a payment mined before the deadline therefore always reaches its payable first. Rows locked
 * elsewhere (a cancel, a payment being applied) are skipped and looked at again next sweep.
 */
import type pg from 'pg'
import { runTransaction } from '../db/index.js'
import { changePayable } from '../charges/index.js'
import type { ReconcilableKind } from './payable-kinds.js'

const BATCH = 100

/**
 * Expires every payable of the kind awaiting payment with a deadline before `passedMs` (and the wall clock),
 * but those whose paying settlement, taken back at block `watchedSince` or later, may still return; returns
 * how many. One transaction per batch of BATCH locked rows, until a batch comes back short.
 */
export async function expireOverdue({ payable }: ReconcilableKind, client: pg.PoolClient, widgetBaseUrl: string, passedMs: number, watchedSince: number): Promise<number> {
  let expired = 0
  for (;;) {
    const batch = await runTransaction(client, async (tx) => {
      const overdue = await payable.queries.lockOverdue(tx, BATCH, new Date(passedMs), watchedSince)
      for (const row of overdue) await changePayable(tx, payable, row, { to: 'expired' }, widgetBaseUrl)
      return overdue.length
    })
    expired += batch
    if (batch < BATCH) return expired
  }
}
