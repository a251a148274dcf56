/**
 * Refunds still awaiting a signature past their deadline on the chain's clock expire (`refund.expired`),
 * as charges do (`expire-charges.ts`); what they reserved of the charge can be refunded again.
 */
import type pg from 'pg'
import { lockOverdueRefunds, runTransaction } from '../db/index.js'
import { changeRefund } from '../charges/index.js'

const BATCH = 100

export async function expireOverdueRefunds(client: pg.PoolClient, widgetBaseUrl: string, passedMs: number): Promise<number> {
  let expired = 0
  for (;;) {
    const batch = await runTransaction(client, async (tx) => {
      const overdue = await lockOverdueRefunds(tx, BATCH, new Date(passedMs))
      for (const refund of overdue) await changeRefund(tx, refund, { to: 'expired' }, widgetBaseUrl)
      return overdue.length
    })
    expired += batch
    if (batch < BATCH) return expired
  }
}
