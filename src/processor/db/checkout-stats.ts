/**
 * What the operator watches of the checkout engine's tables (docs/runbook.md): charges and refunds by
 * status, the charges past their deadline that reconciliation has not expired yet (it waits for the
 * explorer's feed to pass the deadline, so they pile up while the feed lags), the webhook outbox's
 * backlog, and the newest CRL's age and time left. The status counts read the whole charges and refunds
 * tables: one sequential scan each per poll (15 s), which is why the poll is not faster.
 */
import type { Sql } from './open-database.js'

export interface CheckoutStats {
  chargesByStatus: Record<string, number>
  refundsByStatus: Record<string, number>
  /** Awaiting payment, their deadline passed more than `graceSeconds` ago. */
  overdueCharges: number
  /** Webhook events not yet delivered nor given up on. */
  webhookBacklog: number
  /** Of them, those whose last attempt failed (retried with backoff). */
  webhookRetrying: number
  /** Seconds since the oldest undelivered event was written; 0 when none waits. */
  oldestWebhookSeconds: number
  /** The newest CRL: seconds since its thisUpdate and until its nextUpdate; undefined before the CA signed one. */
  crl?: { ageSeconds: number; remainingSeconds: number }
}

const byStatus = async (sql: Sql, table: 'charges' | 'refunds') => {
  const { rows } = await sql.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM ${table} GROUP BY status`)
  return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

export async function readCheckoutStats(sql: Sql, graceSeconds: number): Promise<CheckoutStats> {
  const [chargesByStatus, refundsByStatus, overdue, webhooks, crl] = await Promise.all([
    byStatus(sql, 'charges'),
    byStatus(sql, 'refunds'),
    sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM charges WHERE status = 'awaiting-payment' AND deadline < now() - make_interval(secs => $1)`, [graceSeconds]),
    sql.query<{ backlog: number; retrying: number; oldest: number }>(
      `SELECT count(*)::int AS backlog, count(*) FILTER (WHERE attempts > 0)::int AS retrying,
              COALESCE(extract(epoch FROM clock_timestamp() - min(created_at)), 0)::float8 AS oldest
       FROM webhook_events WHERE status = 'pending'`,
    ),
    sql.query<{ age: number; remaining: number }>(
      `SELECT extract(epoch FROM clock_timestamp() - this_update)::float8 AS age, extract(epoch FROM next_update - clock_timestamp())::float8 AS remaining
       FROM revocation_lists ORDER BY number DESC LIMIT 1`,
    ),
  ])
  const w = webhooks.rows[0]!
  const c = crl.rows[0]
  return {
    chargesByStatus,
    refundsByStatus,
    overdueCharges: overdue.rows[0]!.n,
    webhookBacklog: w.backlog,
    webhookRetrying: w.retrying,
    oldestWebhookSeconds: w.oldest,
    ...(c && { crl: { ageSeconds: c.age, remainingSeconds: c.remaining } }),
  }
}
