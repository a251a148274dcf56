/**
 * The widget's operator endpoints on the real server (anvil, embedded PostgreSQL): `/ready` while the
 * database answers and a 503 problem once it is stopped, `/metrics` in the Prometheus text format with
 * the answers counted by status. `/health` keeps its own answers.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { getJson, startChainAndDatabase } from '../../src/devnet/testing/index.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'

let chain: LocalChain
let db: Database
let widget: RunningWidget

before(async () => {
  ;({ chain, db } = await startChainAndDatabase({ ownServer: true }))
  const env = { RPC_URL: chain.rpcUrl, SETTLEMENT_CONTRACT: chain.deployment.settlementContract, START_BLOCK: String(chain.deployment.startBlock), WIDGET_PORT: '0' }
  widget = await startWidget(widgetOptionsFromEnv(env), { db, log: createLogger('silent') })
})
after(async () => {
  await widget?.stop()
  await chain?.stop()
})

test('/ready is ready and /metrics is Prometheus text with the process and the answers by status', async () => {
  const ready = await getJson(widget.url, '/ready')
  assert.deepEqual([ready.status, ready.body, ready.headers.get('cache-control')], [200, { status: 'ready' }, 'no-store'])
  assert.equal((await getJson(widget.url, '/health')).status, 200)
  const response = await fetch(`${widget.url}/metrics`)
  const samples = checkPrometheusText({ status: response.status, headers: response.headers, body: await response.text() }, 'widget')
  assert.ok(samples.get('widget_http_requests_total{method="GET",status="200"}')! >= 2)
})

test('with the database stopped, /ready is a 503 problem naming it (and /health 503 as before)', async () => {
  await db.close()
  const ready = await getJson(widget.url, '/ready')
  assert.equal(ready.status, 503)
  assert.equal(ready.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.match(ready.body.detail, /^the database does not answer/)
  assert.deepEqual((await getJson(widget.url, '/health')).body, { status: 'degraded', database: 'unreachable' })
})
