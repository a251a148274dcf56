/**
 * Exactly once across restarts, the reconciliation cursor being in PostgreSQL: the active engine (its own
 * process) is killed with SIGKILL while payments stream in; a standby replica takes the reconciler lock
 * and resumes from the stored cursor — every charge ends settled with one payment and one
 * confirming/settled pair of webhook events, nothing applied twice, nothing lost. And a reorg that
 * happens while no engine runs (the explorer's REMOVED reaches nobody) is found from the chain itself
 * when the charge would settle. Without the explorer the API serves, /health says degraded and /ready 503.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { after, before, test } from 'node:test'
import type { ChargeJson } from '../../src/processor/charges/index.js'
import type { RunningCheckout } from '../../src/processor/checkout/index.js'
import { waitFor, mineUntil, startCheckoutFixture, type CheckoutFixture, type TestMerchant, scriptArgs } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant
const children: ChildProcess[] = []

before(async () => {
  f = await startCheckoutFixture()
  merchant = await f.createMerchant()
})
after(async () => {
  for (const child of children) child.kill('SIGKILL')
  await f?.stop()
})

/** The engine as its own process (`scripts/checkout.ts`); resolves once it listens. */
function spawnCheckout(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, scriptArgs('scripts/checkout.ts'), {
    env: {
      ...process.env,
      DATABASE_URL: f.db.url,
      RPC_URL: f.chain.rpcUrl,
      SETTLEMENT_CONTRACT: f.chain.deployment.settlementContract,
      START_BLOCK: String(f.chain.deployment.startBlock),
      EXPLORER_URL: f.explorer.url,
      CHECKOUT_PORT: '0',
      CA_DATA_DIR: f.ca.dataDir,
      POLL_INTERVAL_MS: '50',
      LOG_LEVEL: 'info',
      // The replica's webhook worker: a fixed master secret, so nothing is written under .data.
      WEBHOOK_SECRET_KEY: 'restart-test-webhook-secret-key-0123456789',
      WEBHOOK_ENCRYPTION_KEY: 'restart-test-webhook-encryption-key-0123456789',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.push(child)
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`checkout exited with ${code}`)))
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const entry = JSON.parse(line.startsWith('{') ? line : '{}') as { msg?: string; url?: string; level?: string }
      if (entry.msg === 'checkout engine listening (mutual TLS)') resolve({ child, url: entry.url! })
      else if (entry.level === 'error' || (!line.startsWith('{') && line.trim())) process.stderr.write(`checkout ${child.pid}: ${line}\n`)
    })
  })
}

async function settledCount(ids: string[]): Promise<number> {
  const { rows } = await f.db.pool.query(`SELECT count(*)::int AS n FROM charges WHERE id = ANY($1) AND status = 'settled'`, [ids])
  return rows[0].n
}

test('kill -9 of the active engine mid-stream: the standby resumes from the stored cursor, each payment applied exactly once', async () => {
  await f.checkout.stop()
  const active = await spawnCheckout({ CONFIRMATION_BLOCKS: '0' })
  const viaChild = { url: active.url, caCertificatePem: f.checkout.caCertificatePem } as RunningCheckout
  const standby = await f.startCheckout({ CONFIRMATION_BLOCKS: '0' })
  assert.equal(standby.reconcilerRole(), 'standby')

  const charges: ChargeJson[] = []
  for (let i = 0; i < 24; i++) {
    const token = f.chain.deployment.tokens[i % 2]!
    const body = { amount: String(1_000_000 * (i + 1)), token: token.address, beneficiary: f.chain.deployment.recipients[i % 3]!, currency: token.symbol, orderId: `stream-${i}` }
    const answer = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, viaChild)
    assert.equal(answer.status, 201)
    charges.push(answer.body)
  }
  const ids = charges.map((c) => c.id)
  const paying = (async () => {
    for (const [i, charge] of charges.entries()) await f.pay(charge, { payer: i % 4 })
  })()

  const settledBeforeKill = await waitFor('a few charges settled by the child', async () => {
    const n = await settledCount(ids)
    return n >= 6 ? n : undefined
  })
  active.child.kill('SIGKILL')
  assert.ok(settledBeforeKill < charges.length, 'killed mid-stream')
  await waitFor('the standby to take the reconciler lock', () => standby.reconcilerRole() === 'active')
  await paying
  await waitFor('every charge settled', async () => (await settledCount(ids)) === charges.length, 60_000)

  const { rows: payments } = await f.db.pool.query(
    `SELECT charge_id, count(*)::int AS n, bool_and(outcome = 'matched' AND removed_at IS NULL) AS ok FROM charge_payments WHERE charge_id = ANY($1) GROUP BY charge_id`,
    [ids],
  )
  assert.equal(payments.length, charges.length)
  for (const row of payments) assert.deepEqual([row.n, row.ok], [1, true], row.charge_id)
  for (const id of ids) assert.deepEqual(await f.webhookTypes(id), ['charge.confirming', 'charge.settled'], id)
  await standby.stop()
})

test('a reorg while no engine runs is found from the chain when the charge would settle', async () => {
  const first = await f.startCheckout({ CONFIRMATION_BLOCKS: '2' })
  await waitFor('the engine to take the reconciler lock', () => first.reconcilerRole() === 'active')
  const viaFirst = (path: string) => f.request(merchant.credentials, 'GET', path, {}, first)
  const created = (await f.request(merchant.credentials, 'POST', '/api/v1/charges', {
    body: { amount: '7000000', token: f.chain.deployment.tokens[0]!.address, beneficiary: f.chain.deployment.recipients[0]!, currency: f.chain.deployment.tokens[0]!.symbol, orderId: 'reorg-while-down' },
  }, first)).body as ChargeJson
  const snapshot = await f.rpc<string>('evm_snapshot')
  const doomed = await f.pay(created)
  await waitFor('confirming', async () => (await viaFirst(`/api/v1/charges/${created.id}`)).body.status === 'confirming')
  await first.stop()

  assert.equal(await f.rpc<boolean>('evm_revert', [snapshot]), true)
  await waitFor('the explorer to roll the settlement back', async () => (await f.explorer.get(`/events/${doomed}`)).status === 404)
  const second = await f.startCheckout({ CONFIRMATION_BLOCKS: '2' })
  await waitFor('the engine to take the reconciler lock', () => second.reconcilerRole() === 'active')
  await mineUntil(f.chain, 'the charge back to awaiting payment', async () => (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${created.id}`, {}, second)).body.status === 'awaiting-payment')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.reverted'])
  const { payments } = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${created.id}/payments`, {}, second)).body
  assert.deepEqual(payments.map((p: { txHash: string; removed: boolean }) => [p.txHash, p.removed]), [[doomed, true]])
  await second.stop()
})

test('with the explorer unreachable the API still serves, /health is 503 degraded and /ready a 503 problem', async () => {
  const blind = await f.startCheckout({ EXPLORER_URL: 'http://127.0.0.1:9' })
  await waitFor('the engine to take the reconciler lock', () => blind.reconcilerRole() === 'active')
  const health = await f.request(merchant.credentials, 'GET', '/health', {}, blind)
  assert.equal(health.status, 503)
  assert.deepEqual({ ...health.body, crlNumber: undefined, reconciler: { ...health.body.reconciler, head: undefined } }, {
    status: 'degraded',
    reconciler: { role: 'active', explorerConnected: false, head: undefined },
    crlNumber: undefined,
  })
  const ready = await f.request(merchant.credentials, 'GET', '/ready', {}, blind)
  assert.equal(ready.status, 503)
  assert.match(ready.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.equal(ready.body.detail, 'this replica reconciles charges but does not reach the explorer at EXPLORER_URL')
  assert.equal((await f.request(merchant.credentials, 'GET', '/api/v1/charges?limit=1', {}, blind)).status, 200)
  await blind.stop()
})
