/**
 * What the operator watches of the submissions queue (docs/runbook.md): how many payments wait for the
 * submitter and since when, and how many are sent but not mined and since when. Both read the queue's
 * partial indexes (waiting, in flight), so the cost follows the queue, not the table's history.
 */
import type { Sql } from './open-database.js'

export interface QueueStats {
  /** ENQUEUING or PENDING submissions. */
  waiting: number
  /** Seconds since the oldest waiting one was taken; 0 when none waits. */
  oldestWaitingSeconds: number
  /** BROADCASTING submissions: a transaction sent, no receipt yet. */
  broadcasting: number
  /** Seconds since the oldest of them was taken; 0 when none is in flight. */
  oldestBroadcastingSeconds: number
}

export async function readQueueStats(sql: Sql): Promise<QueueStats> {
  const { rows } = await sql.query<QueueStats>(
    `SELECT count(*) FILTER (WHERE status IN ('ENQUEUING', 'PENDING'))::int AS waiting,
            COALESCE(extract(epoch FROM clock_timestamp() - min(created_at) FILTER (WHERE status IN ('ENQUEUING', 'PENDING'))), 0)::float8 AS "oldestWaitingSeconds",
            count(*) FILTER (WHERE status = 'BROADCASTING')::int AS broadcasting,
            COALESCE(extract(epoch FROM clock_timestamp() - min(created_at) FILTER (WHERE status = 'BROADCASTING')), 0)::float8 AS "oldestBroadcastingSeconds"
     FROM submissions WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING')`,
  )
  return rows[0]!
}
