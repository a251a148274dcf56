/**
 * deploy/ read as the live test reads it, without the stack: every alert rule is complete (severity,
 * summary, description) and has its runbook entry, every query parses with Prometheus' own parser, and
 * the checks themselves catch what they are for — a renamed metric, a syntax error, a rule the line
 * reader cannot read, and the evaluator's answers on known samples.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../src/devnet/testing/index.js'
import { metricNames, readAlertRules, readDashboardQueries, unknownMetricNames } from './deploy-queries.js'
import { evaluate } from './evaluate-promql.js'
import { announcedNames, samplesOf } from './scraped-samples.js'

const rulesDir = join(repoRoot, 'deploy/prometheus/rules')
const dashboardsDir = join(repoRoot, 'deploy/grafana/dashboards')

test('every alert rule has a severity, a summary and a description, and docs/runbook.md an entry under its name', () => {
  const rules = readAlertRules(rulesDir)
  assert.ok(rules.length >= 20, `${rules.length} rules`)
  const runbook = readFileSync(join(repoRoot, 'docs/runbook.md'), 'utf8')
  const entries = new Set([...runbook.matchAll(/^### (\w+)$/gm)].map((m) => m[1]))
  for (const rule of rules) {
    assert.ok(['critical', 'warning'].includes(rule.severity ?? ''), `${rule.where}: severity ${rule.severity}`)
    assert.ok(rule.summary && rule.description, `${rule.where}: summary and description`)
    assert.ok(entries.has(rule.alert), `${rule.where}: no "### ${rule.alert}" in docs/runbook.md`)
  }
  // The list, each by the alert that answers it.
  for (const alert of ['ExplorerIndexerLag', 'ExplorerReplicaNotReady', 'RelayerRunwayLow', 'RelayerUnavailable', 'SubmitterQueueDeep', 'SubmitterQueueStalled', 'StuckTransactions', 'WebhookFailureRate', 'WebhookBacklog', 'Http5xxRate', 'HttpLatencyP99', 'ExplorerSlowSubscribersDropped', 'ExplorerStoreNearFull', 'PostgresUnreachable', 'CrlRenewalLate', 'ChargesExpiringWhileFeedLags']) {
    assert.ok(rules.some((r) => r.alert === alert), `no ${alert} rule`)
  }
})

test('every rule expression and dashboard query parses with Prometheus\' PromQL parser and selects metrics by name', () => {
  const queries = [...readAlertRules(rulesDir), ...readDashboardQueries(dashboardsDir)]
  assert.ok(readDashboardQueries(dashboardsDir).length >= 40)
  for (const query of queries) assert.ok(metricNames(query.expr).length > 0, query.where)
})

test('the name check reports a metric the pieces do not export, and refuses what it could not check', () => {
  const exported = announcedNames('# HELP gateway_relayer_available a\n# TYPE gateway_relayer_available gauge\n# HELP explorer_http_request_duration_seconds d\n# TYPE explorer_http_request_duration_seconds histogram\n')
  const good = [{ where: 'good', expr: 'gateway_relayer_available == 0 or up == 0' }, { where: 'p99', expr: 'histogram_quantile(0.99, sum by (le) (rate(explorer_http_request_duration_seconds_bucket[5m])))' }]
  assert.deepEqual(unknownMetricNames(good, exported), [])
  // A metric renamed in the code (or misspelt in a rule) is what the live test must catch.
  assert.deepEqual(unknownMetricNames([{ where: 'renamed', expr: 'gateway_relayer_availability == 0' }], exported), ['renamed: gateway_relayer_availability'])
  assert.deepEqual(unknownMetricNames([{ where: 'summary', expr: 'explorer_http_request_duration_seconds_quantile > 1' }], exported), ['summary: explorer_http_request_duration_seconds_quantile'])
  assert.throws(() => metricNames('sum(rate(gateway_relayer_available[5m])'), /syntax error/)
  assert.throws(() => metricNames('{__name__=~"gateway_.+"} > 0'), /__name__|without a metric name/)
})

test('a rule whose expr is not one plain line, or is missing, is refused rather than skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rules-'))
  try {
    writeFileSync(join(dir, 'a.rules.yml'), 'groups:\n  - name: a\n    rules:\n      - alert: A\n        expr: |\n          up == 0\n')
    assert.throws(() => readAlertRules(dir), /one plain line/)
    writeFileSync(join(dir, 'a.rules.yml'), 'groups:\n  - name: a\n    rules:\n      - alert: A\n        for: 5m\n')
    assert.throws(() => readAlertRules(dir), /has no expr/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the evaluator: selectors, aggregation, arithmetic, comparison filters and set operations over scraped samples', () => {
  const text = [
    'gateway_relayer_available 1',
    'gateway_relayer_runway_low 1',
    'gateway_queue_waiting_submissions 7',
    'explorer_store_used_bytes 90',
    'explorer_store_map_size_bytes 100',
    'checkout_charges{status="settled"} 4',
    'checkout_charges{status="expired"} 2',
  ].join('\n')
  const a = samplesOf(text, { job: 'a', instance: 'a:1' })
  const b = samplesOf('gateway_queue_waiting_submissions 12\ngateway_relayer_available 0\ngateway_relayer_runway_low 1', { job: 'b', instance: 'b:1' })
  const samples = [...a, ...b]
  const instances = (v: ReturnType<typeof evaluate>) => (v as { labels: Record<string, string> }[]).map((s) => s.labels.instance)
  assert.deepEqual(instances(evaluate('gateway_relayer_runway_low == 1 and gateway_relayer_available == 1', samples)), ['a:1'])
  assert.deepEqual(instances(evaluate('gateway_relayer_available == 0', samples)), ['b:1'])
  assert.deepEqual(evaluate('max(gateway_queue_waiting_submissions) > 10', samples), [{ labels: {}, value: 12 }])
  assert.deepEqual(evaluate('max(gateway_queue_waiting_submissions) > 20', samples), [])
  assert.deepEqual(evaluate('explorer_store_used_bytes / explorer_store_map_size_bytes > 0.8', samples), [{ labels: { job: 'a', instance: 'a:1' }, value: 0.9 }])
  assert.deepEqual(evaluate('sum by (status) (checkout_charges{status!="settled"})', samples), [{ labels: { status: 'expired' }, value: 2 }])
  assert.equal(evaluate('0.6 * (2 + 3)', samples), 3)
  assert.throws(() => evaluate('rate(gateway_queue_waiting_submissions[5m]) > 0', samples), /FunctionCall .* not supported/)
  assert.throws(() => evaluate('gateway_relayer_available > bool 0', samples), /not supported/)
})
