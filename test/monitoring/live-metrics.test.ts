/**
 * deploy/ against the live pieces, started as `npm start` starts them (scripts/start.ts in a process group
 * of its own; its demo traffic stops after 30 payments, so the relayer's balance moves only when this test
 * moves it). Every piece's `/metrics` is scraped — the checkout engine's over mutual TLS with the demo
 * merchant's certificate — and every metric name in every alert rule and dashboard query must be one of
 * those the pieces announce; on the healthy stack no alert the evaluator reads holds. Then RelayerRunwayLow and RelayerUnavailable are driven for real: the
 * relayer's balance is cut on anvil, and the rules' expressions, evaluated over the gateway's scraped
 * values (evaluate-promql.ts), turn true in turn.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Agent, fetch } from 'undici'
import { createPublicClient, createTestClient, http, type Hex } from 'viem'
import { findFreePort } from '../../src/platform/net/index.js'
import { readCredentialFiles } from '../../src/processor/merchant-client/index.js'
import { waitFor, repoRoot, scriptArgs } from '../../src/devnet/testing/index.js'
import { readAlertRules, readDashboardQueries, unknownMetricNames } from './deploy-queries.js'
import { evaluate } from './evaluate-promql.js'
import { announcedNames, samplesOf } from './scraped-samples.js'

const cwd = mkdtempSync(join(tmpdir(), 'monitoring-'))
// The embedded PostgreSQL runs as the postgres user, who must be able to reach .data/postgres.
chmodSync(cwd, 0o755)

/** The pieces `npm start` runs that serve /metrics, by the job name deploy/prometheus/prometheus.yml gives them. */
const PIECES = { explorer: 'EXPLORER_PORT', 'data-service': 'DATA_SERVICE_PORT', gateway: 'GATEWAY_PORT', ca: 'CA_PORT', checkout: 'CHECKOUT_PORT', widget: 'WIDGET_PORT', 'demo-store': 'STORE_PORT' } as const
type Piece = keyof typeof PIECES

let stack: ChildProcess
let output = ''
const ports = {} as Record<Piece, number>
let checkoutAgent: Agent

before(async () => {
  for (const piece of Object.keys(PIECES) as Piece[]) ports[piece] = await findFreePort()
  const env = Object.fromEntries((Object.entries(PIECES) as [Piece, string][]).map(([piece, setting]) => [setting, String(ports[piece])]))
  // From the test's copy, the script's transpiled copy; from the tree, the script itself (the cwd is elsewhere).
  const start = scriptArgs('scripts/start.ts').map((arg) => (arg === 'scripts/start.ts' ? join(repoRoot, arg) : arg))
  stack = spawn(process.execPath, [...start, '--port', '0', '--count', '30', '--quiet'], {
    cwd,
    detached: true,
    // The runway is measured every 200 ms instead of every minute, so a balance cut shows at once.
    env: { ...process.env, ...env, SUBMITTER_RUNWAY_MEASURE_MS: '200', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  stack.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  stack.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitFor(
    'npm start to have served its demo payments',
    async () => {
      if (stack.exitCode !== null) throw new Error(`npm start ended:\n${output}`)
      if (!/^open http/m.test(output)) return false
      const events = await fetch(`${url('explorer')}/events?limit=1`).then((r) => r.json() as Promise<{ events: unknown[] }>, () => undefined)
      return (events?.events.length ?? 0) > 0
    },
    150_000,
  )
  const credentials = await readCredentialFiles(join(cwd, '.data/demo-merchant'))
  checkoutAgent = new Agent({ connect: { key: credentials.key, cert: credentials.cert, ca: credentials.ca } })
})

after(async () => {
  await checkoutAgent?.close()
  if (stack && stack.exitCode === null && stack.signalCode === null) {
    const exited = once(stack, 'exit')
    process.kill(-stack.pid!, 'SIGINT')
    const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000).unref())])
    if (!stopped) process.kill(-stack.pid!, 'SIGKILL')
  }
  rmSync(cwd, { recursive: true, force: true })
})

const url = (piece: Piece) => `${piece === 'checkout' ? 'https' : 'http'}://127.0.0.1:${ports[piece]}`

async function scrape(piece: Piece): Promise<string> {
  const answer = await fetch(`${url(piece)}/metrics`, piece === 'checkout' ? { dispatcher: checkoutAgent } : {})
  assert.equal(answer.status, 200, `${piece} /metrics`)
  return answer.text()
}

test('every metric name in every alert rule and dashboard query is one the live pieces export; a renamed one is caught', { timeout: 60_000 }, async () => {
  const exported = new Set<string>()
  for (const piece of Object.keys(PIECES) as Piece[]) for (const name of announcedNames(await scrape(piece))) exported.add(name)
  const rules = readAlertRules(join(repoRoot, 'deploy/prometheus/rules'))
  const panels = readDashboardQueries(join(repoRoot, 'deploy/grafana/dashboards'))
  assert.deepEqual(unknownMetricNames([...rules, ...panels], exported), [])
  // The same check on a name the code might have renamed it to: it is reported, not silently empty.
  assert.deepEqual(unknownMetricNames([{ where: 'renamed', expr: 'explorer_indexer_lag_block > 20' }], exported), ['renamed: explorer_indexer_lag_block'])
})

test('on the running stack no alert holds of those the evaluator reads (the ones over rates: promtool test rules)', { timeout: 60_000 }, async () => {
  const pieces = Object.keys(PIECES) as Piece[]
  const samples = (await Promise.all(pieces.map(async (piece) => samplesOf(await scrape(piece), { job: piece, instance: `127.0.0.1:${ports[piece]}` })))).flat()
  const value = (name: string) => samples.find((s) => s.labels.__name__ === name)?.value
  assert.equal(value('explorer_ready'), 1)
  assert.ok(value('explorer_store_used_bytes')! > 0 && value('explorer_store_used_bytes')! < value('explorer_store_map_size_bytes')!)
  assert.equal(value('gateway_database_up'), 1)
  assert.ok(value('checkout_crl_remaining_seconds')! > 0)
  const evaluated: string[] = []
  for (const rule of readAlertRules(join(repoRoot, 'deploy/prometheus/rules'))) {
    let result
    try {
      result = evaluate(rule.expr, samples)
    } catch (error) {
      if (/not supported by the test's evaluator/.test((error as Error).message)) continue
      throw error
    }
    evaluated.push(rule.alert)
    assert.deepEqual(result, [], `${rule.where} holds on a healthy stack`)
  }
  assert.ok(evaluated.length >= 14, evaluated.join(', '))
})

test('RelayerRunwayLow, then RelayerUnavailable, turn true over the scraped gateway as the relayer balance is cut on anvil', { timeout: 120_000 }, async () => {
  const rules = readAlertRules(join(repoRoot, 'deploy/prometheus/rules'))
  const rule = (alert: string) => rules.find((r) => r.alert === alert)!.expr
  const firing = async (alert: string) => (evaluate(rule(alert), samplesOf(await scrape('gateway'), { job: 'gateway', instance: `127.0.0.1:${ports.gateway}` })) as unknown[]).length > 0
  const rpcUrl = /devnet: +(http:\/\/\S+),/.exec(output)![1]!
  const relayer = /broadcast submitter for relayer (0x[0-9a-fA-F]{40})/.exec(output)![1]! as Hex
  const anvil = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  const funded = await createPublicClient({ transport: http(rpcUrl) }).getBalance({ address: relayer })
  // The runway is measured from the relayer's receipts of the demo payments.
  const health = await waitFor('the submitter to measure the runway', async () => {
    const body = (await (await fetch(`${url('gateway')}/health`)).json()) as { relayer: { minimum: string; runwayPayments?: string } | null }
    return body.relayer?.minimum !== undefined && samplesOf(await scrape('gateway'), { job: 'gateway', instance: '' }).some((s) => s.labels.__name__ === 'gateway_relayer_runway_payments' && s.value > 0) && body.relayer
  })
  assert.equal(await firing('RelayerRunwayLow'), false, 'a relayer funded on anvil has a long runway')
  assert.equal(await firing('RelayerUnavailable'), false)
  try {
    // Ten times the minimum: a few hundred payments, under the 10,000 of RELAYER_RUNWAY_WARNING_PAYMENTS.
    await anvil.setBalance({ address: relayer, value: BigInt(health.minimum) * 10n })
    await waitFor('RelayerRunwayLow to hold', () => firing('RelayerRunwayLow'), 30_000)
    assert.equal(await firing('RelayerUnavailable'), false, 'payments are still taken')
    await anvil.setBalance({ address: relayer, value: 0n })
    await waitFor('RelayerUnavailable to hold', () => firing('RelayerUnavailable'), 30_000)
    assert.equal(await firing('RelayerRunwayLow'), false, 'RelayerUnavailable says it alone once nothing is taken')
  } finally {
    await anvil.setBalance({ address: relayer, value: funded })
  }
  await waitFor('both to clear after the top-up', async () => !(await firing('RelayerUnavailable')) && !(await firing('RelayerRunwayLow')), 30_000)
})
