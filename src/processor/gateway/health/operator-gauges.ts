/**
 * The gateway's gauges for the operator's alerts (deploy/prometheus/rules, docs/runbook.md) besides
 * `/health`'s: the relayer as the active submitter last reported it (balance, minimum, runway in
 * payments and whether it is under RELAYER_RUNWAY_WARNING_PAYMENTS), and the submissions queue read
 * from PostgreSQL every QUEUE_POLL_MS — the submitter has no HTTP server, and every gateway shares its
 * database — with whether this gateway reaches the database at all.
 */
import type { Database } from '../../db/index.js'
import { pollDatabase, readQueueStats, type QueueStats } from '../../db/index.js'
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import type { RelayerMonitor } from '../pushes/relayer-monitor.js'

const QUEUE_POLL_MS = 5_000

export function operatorGauges({ relayer, db, metrics, log }: { relayer: RelayerMonitor; db: Database; metrics: Metrics; log: Logger }): { stop(): Promise<void> } {
  // Wei as a float: exact to 2^53 wei, ample for an alert's comparison and a graph.
  const wei = (value: string | undefined) => (value === undefined ? -1 : Number(value))
  metrics.collected('relayer_balance_wei', "The relayer's native balance (-1 before any submitter reported)", () => wei(relayer.current()?.balance))
  metrics.collected('relayer_minimum_wei', 'The balance under which the relayer guard holds submissions back', () => wei(relayer.current()?.minimum))
  metrics.collected('relayer_runway_payments', 'Payments the relayer balance still pays for at current gas prices (-1 until measured)', () => {
    const runway = relayer.current()?.runwayPayments
    return runway == null ? -1 : Number(runway)
  })
  metrics.collected('relayer_runway_low', '1 while the runway is under RELAYER_RUNWAY_WARNING_PAYMENTS: time to top up', () => (relayer.current()?.runwayLow ? 1 : 0))

  const queue: [keyof QueueStats, string, string][] = [
    ['waiting', 'queue_waiting_submissions', 'Submissions waiting for the submitter (ENQUEUING or PENDING)'],
    ['oldestWaitingSeconds', 'queue_oldest_waiting_seconds', 'Age of the oldest waiting submission (0 when none waits)'],
    ['broadcasting', 'queue_broadcasting_submissions', 'Submissions sent to the chain and not mined yet (BROADCASTING)'],
    ['oldestBroadcastingSeconds', 'queue_oldest_broadcasting_seconds', 'Age of the oldest BROADCASTING submission (0 when none): a stuck transaction shows here'],
  ]
  const gauges = queue.map(([field, name, help]) => [field, metrics.gauge(name, help)] as const)
  return pollDatabase({
    sql: db.pool,
    everyMs: QUEUE_POLL_MS,
    read: readQueueStats,
    onRead: (stats) => gauges.forEach(([field, set]) => set(stats[field])),
    metrics,
    log,
  })
}
