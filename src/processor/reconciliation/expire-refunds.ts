/**
 * Refunds still awaiting a signature past their deadline on the chain's clock expire (`refund.expired`),
 * as charges do (`expire-charges.ts`); what they reserved of the charge can be refunded again.
 */
import type pg from 'pg'
import { lockOverdueRefunds } from '../db/index.js'
import { changeRefund } from '../charges/index.js'
import { expireInBatches } from './expire-charges.js'

export function expireOverdueRefunds(client: pg.PoolClient, widgetBaseUrl: string, passedMs: number, watchedSince: number): Promise<number> {
  return expireInBatches(client, passedMs, watchedSince, lockOverdueRefunds, (tx, refund) => changeRefund(tx, refund, { to: 'expired' }, widgetBaseUrl))
}
