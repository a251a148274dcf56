/**
 * The checkout engine's gauges for the operator's dashboards and alerts (deploy/, docs/runbook.md), read
 * from PostgreSQL every STATS_POLL_MS: charges and refunds by status, charges overdue for expiry (their
 * deadline passed OVERDUE_GRACE_SECONDS ago while reconciliation still waits for the explorer's feed to
 * pass it), the webhook outbox's backlog, the newest CRL's age and time left, and whether this replica
 * reaches the database.
 */
import type { Database } from '../db/index.js'
import { pollDatabase, readCheckoutStats } from '../db/index.js'
import type { Logger, Metrics } from '../../platform/observability/index.js'

const STATS_POLL_MS = 15_000
const OVERDUE_GRACE_SECONDS = 60

export function operatorGauges({ db, metrics, log }: { db: Database; metrics: Metrics; log: Logger }): { stop(): Promise<void> } {
  const charges = byStatus(metrics.gauge('charges', 'Charges by status'))
  const refunds = byStatus(metrics.gauge('refunds', 'Refunds by status'))
  const overdue = metrics.gauge('charges_overdue', `Charges awaiting payment ${OVERDUE_GRACE_SECONDS} s past their deadline: not expired while the feed has not passed it`)
  const backlog = metrics.gauge('webhook_backlog_events', 'Webhook events neither delivered nor given up on')
  const retrying = metrics.gauge('webhook_retrying_events', 'Of the backlog, events whose last attempt failed')
  const oldest = metrics.gauge('webhook_oldest_pending_seconds', 'Age of the oldest undelivered webhook event (0 when none)')
  const crlAge = metrics.gauge('crl_age_seconds', "Seconds since the newest CRL's thisUpdate (-1 before any)")
  const crlRemaining = metrics.gauge('crl_remaining_seconds', "Seconds until the newest CRL's nextUpdate, when TLS stops accepting it (-1 before any)")
  return pollDatabase({
    sql: db.pool,
    everyMs: STATS_POLL_MS,
    read: (sql) => readCheckoutStats(sql, OVERDUE_GRACE_SECONDS),
    onRead(stats) {
      charges(stats.chargesByStatus)
      refunds(stats.refundsByStatus)
      overdue(stats.overdueCharges)
      backlog(stats.webhookBacklog)
      retrying(stats.webhookRetrying)
      oldest(stats.oldestWebhookSeconds)
      crlAge(stats.crl?.ageSeconds ?? -1)
      crlRemaining(stats.crl?.remainingSeconds ?? -1)
    },
    metrics,
    log,
  })
}

/** Sets a gauge per status; a status counted before and absent now (none left) reads 0, not its last count. */
function byStatus(gauge: (value: number, labels: { status: string }) => void): (counts: Record<string, number>) => void {
  const seen = new Set<string>()
  return (counts) => {
    for (const status of Object.keys(counts)) seen.add(status)
    for (const status of seen) gauge(counts[status] ?? 0, { status })
  }
}
