/**
 * Writing to the webhook outbox (PROCESSOR.md §4). Callers pass the transaction client of the charge
 * change that causes the event, so the event exists exactly when the change does; the NOTIFY (delivered
 * on COMMIT) wakes the delivery workers of every replica.
 */
import { randomBytes } from 'node:crypto'
import type { Sql } from './open-database.js'

export const webhookChannel = 'webhook_enqueued'

export type WebhookType =
  | 'charge.confirming'
  | 'charge.settled'
  | 'charge.expired'
  | 'charge.canceled'
  | 'charge.reverted'
  | 'charge.late_payment'
  | 'refund.created'
  | 'refund.confirming'
  | 'refund.settled'
  | 'refund.expired'
  | 'refund.canceled'
  | 'refund.reverted'

export interface NewWebhookEvent {
  merchantId: string
  /** The charge the event is about (a refund's event: the refund's charge); events of one charge are delivered in order. */
  chargeId: string
  type: WebhookType
  /** The charge (or payment, or refund) as the merchant API renders it. */
  data: unknown
}

/** Adds an event to the outbox; returns its id (the `webhook-id` header). */
export async function enqueueWebhook(sql: Sql, event: NewWebhookEvent): Promise<string> {
  const id = `msg_${randomBytes(12).toString('hex')}`
  const payload = { type: event.type, timestamp: new Date().toISOString(), data: event.data }
  await sql.query(
    `INSERT INTO webhook_events (id, merchant_id, charge_id, type, payload) VALUES ($1, $2, $3, $4, $5);`,
    [id, event.merchantId, event.chargeId, event.type, JSON.stringify(payload)],
  )
  await sql.query('SELECT pg_notify($1, $2)', [webhookChannel, id])
  return id
}
