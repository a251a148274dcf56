/**
 * The gateway's gauges read from PostgreSQL, on a real database, with the alert rules' own expressions
 * evaluated over what its registry renders: a submission sent 700 s ago and not mined makes
 * StuckTransactions hold while a payment waiting 30 s leaves SubmitterQueueStalled quiet; the network to
 * PostgreSQL cut (a TCP relay between the gateway's pool and the server) makes PostgresUnreachable hold,
 * and its return clears it. The checkout engine's statistics read on the same schema.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { openDatabase, readCheckoutStats, type Database } from '../../src/processor/db/index.js'
import { monitorRelayer, type RelayerMonitor } from '../../src/processor/gateway/pushes/relayer-monitor.js'
import { operatorGauges } from '../../src/processor/gateway/health/operator-gauges.js'
import { createLogger, serviceMetrics, type Metrics } from '../../src/platform/observability/index.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { waitFor, repoRoot } from '../../src/devnet/testing/index.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { readAlertRules } from './deploy-queries.js'
import { evaluate } from './evaluate-promql.js'
import { samplesOf } from './scraped-samples.js'

const log = createLogger('silent')
const rules = readAlertRules(join(repoRoot, 'deploy/prometheus/rules'))
let db: Database
let proxy: TcpProxy
let relayer: RelayerMonitor

before(async () => {
  const { url } = await testDatabase()
  const target = new URL(url!)
  proxy = await startTcpProxy(Number(target.port))
  target.host = new URL(proxy.url).host
  db = await openDatabase({ url: target.toString(), embeddedDir: '' }, log)
  db.pool.on('error', () => {})
  relayer = await monitorRelayer({ sql: db.pool, refreshMs: 60_000, staleMs: 60_000, log })
})
after(async () => {
  relayer?.stop()
  proxy?.restore()
  await db?.close()
  await proxy?.stop()
})

const holds = (alert: string, metrics: Metrics) =>
  (evaluate(rules.find((r) => r.alert === alert)!.expr, samplesOf(metrics.render(), { job: 'gateway', instance: 'gateway:4000' })) as unknown[]).length > 0

async function insertSubmission(payloadId: string, status: 'PENDING' | 'BROADCASTING', ageSeconds: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, deadline, request, status, created_at)
     VALUES ($1, 'PAYMENT', '0x01', $1, '0x02', '0x03', 0, 0, '{}', $2, now() - make_interval(secs => $3))`,
    [payloadId, status, ageSeconds],
  )
}

test('a transaction in flight for 700 s makes StuckTransactions hold; a payment waiting 30 s leaves SubmitterQueueStalled quiet', { timeout: 30_000 }, async () => {
  await insertSubmission('stuck', 'BROADCASTING', 700)
  await insertSubmission('waiting', 'PENDING', 30)
  const metrics = serviceMetrics('gateway')
  const gauges = operatorGauges({ relayer, db, metrics, log })
  try {
    await waitFor('the first read', () => /^gateway_queue_broadcasting_submissions 1$/m.test(metrics.render()))
    assert.match(metrics.render(), /^gateway_queue_waiting_submissions 1$/m)
    assert.equal(holds('StuckTransactions', metrics), true)
    assert.equal(holds('SubmitterQueueStalled', metrics), false)
    assert.equal(holds('PostgresUnreachable', metrics), false)
  } finally {
    await gauges.stop()
    await db.pool.query(`DELETE FROM submissions`)
  }
})

test('PostgreSQL out of reach makes PostgresUnreachable hold within a probe or two, and its return clears it', { timeout: 60_000 }, async () => {
  const metrics = serviceMetrics('gateway')
  const gauges = operatorGauges({ relayer, db, metrics, log })
  try {
    await waitFor('the first probe', () => /^gateway_database_up 1$/m.test(metrics.render()))
    assert.equal(holds('PostgresUnreachable', metrics), false)
    proxy.cut()
    await waitFor('PostgresUnreachable to hold', () => holds('PostgresUnreachable', metrics), 20_000)
    proxy.restore()
    await waitFor('PostgresUnreachable to clear', () => !holds('PostgresUnreachable', metrics), 20_000)
  } finally {
    proxy.restore()
    await gauges.stop()
  }
})

test("the checkout engine's statistics on an empty schema: no charge, no backlog, no CRL yet", async () => {
  const stats = await readCheckoutStats(db.pool, 60)
  assert.deepEqual(stats, { chargesByStatus: {}, refundsByStatus: {}, overdueCharges: 0, webhookBacklog: 0, webhookRetrying: 0, oldestWebhookSeconds: 0 })
})
