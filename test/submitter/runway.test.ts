/**
 * The relayer's runway on a real chain and database: the gas of a payment measured from the relayer's
 * recent receipts (checked against the receipts of the payments this test sent), payments left against
 * the balance and the gas price, `npm run admin -- relayer`, and the submitter's relayer guard warning
 * once and writing the runway for /health when it falls below the warning level — while still taking
 * work, since the hard stop is RELAYER_MIN_BALANCE's.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { createTestClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import { createFeeCache } from '../../src/chain/tx/create-tx-sender.js'
import { measurePaymentGas, relayerRunway } from '../../src/chain/relayer/runway.js'
import { runwayWarningSetting } from '../../src/config/submitter-options.js'
import { ConfigError } from '../../src/config/parse-env.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { readRelayerStatus } from '../../src/processor/db/relayer-status.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { createRelayerGuard } from '../../src/processor/submitter/relayer-guard.js'
import { startChainAndDatabase, sendSettlements, type LocalChain, type SentSettlement, scriptArgs } from '../../src/devnet/testing/index.js'

const run = promisify(execFile)
let chain: LocalChain
let db: Database
let sent: SentSettlement[]
let relayer: Hex
const dir = mkdtempSync(join(tmpdir(), 'runway-'))
const deploymentPath = join(dir, 'deployment.json')

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
  writeFileSync(deploymentPath, JSON.stringify(chain.deployment))
  relayer = privateKeyToAccount(chain.deployment.relayerKey!).address.toLowerCase() as Hex
  sent = await sendSettlements(chain, 8)
})
after(async () => {
  await db?.close()
  await chain?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const client = () => createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })

test('the gas of a payment is the average over the relayer\'s recent payment receipts; another sender\'s are not counted', async () => {
  const mine = sent.filter((s) => s.receipt.from.toLowerCase() === relayer)
  assert.equal(mine.length, 8)
  const expected = mine.reduce((sum, s) => sum + s.receipt.gasUsed, 0n) / 8n
  const measured = await measurePaymentGas({ publicClient: client(), settlementContract: chain.deployment.settlementContract, relayer })
  assert.deepEqual(measured, { gasPerPayment: expected, samples: 8 })
  assert.ok(expected > 50_000n && expected < 250_000n, `${expected}`)
  const stranger = await measurePaymentGas({ publicClient: client(), settlementContract: chain.deployment.settlementContract, relayer: `0x${'11'.repeat(20)}` })
  assert.deepEqual(stranger, { gasPerPayment: 250_000n, samples: 0 })
})

test('payments left = balance / (gas per payment × gas price), as npm run admin -- relayer prints it', async () => {
  const publicClient = client()
  const [balance, gasPrice, runway] = await Promise.all([
    publicClient.getBalance({ address: relayer }),
    publicClient.getGasPrice(),
    relayerRunway({ publicClient, settlementContract: chain.deployment.settlementContract, relayer }),
  ])
  assert.equal(runway.balance, balance)
  assert.equal(runway.gasPrice, gasPrice)
  assert.equal(runway.costPerPayment, runway.gasPerPayment * gasPrice)
  assert.equal(runway.paymentsLeft, balance / (runway.gasPerPayment * gasPrice))

  const { stdout } = await run(process.execPath, [...scriptArgs('scripts/admin.ts'), 'relayer', '--json', '--deployment', deploymentPath])
  const printed = JSON.parse(stdout) as Record<string, string | boolean | number>
  assert.equal(printed.relayer, relayer)
  assert.equal(printed.paymentsLeft, runway.paymentsLeft.toString())
  assert.equal(printed.gasPerPayment, runway.gasPerPayment.toString())
  assert.equal(printed.samples, 8)
  assert.equal(printed.warnBelow, '10000')
  assert.equal(printed.low, runway.paymentsLeft < 10_000n)
  const text = await run(process.execPath, [...scriptArgs('scripts/admin.ts'), 'relayer', '--deployment', deploymentPath], {
    env: { ...process.env, RELAYER_RUNWAY_WARNING_PAYMENTS: String(runway.paymentsLeft + 1n) },
  })
  assert.match(text.stdout, new RegExp(`payments left +${runway.paymentsLeft}\\n`))
  assert.match(text.stdout, /gas per payment +\d+ \(measured over the last 8 payments\)/)
  assert.match(text.stdout, /warning below +\d+ payments \(RELAYER_RUNWAY_WARNING_PAYMENTS\): LOW, top up the relayer/)
})

test('RELAYER_RUNWAY_WARNING_PAYMENTS: 10,000 by default, validated', () => {
  assert.equal(runwayWarningSetting({}), 10_000n)
  assert.equal(runwayWarningSetting({ RELAYER_RUNWAY_WARNING_PAYMENTS: '500' }), 500n)
  assert.throws(() => runwayWarningSetting({ RELAYER_RUNWAY_WARNING_PAYMENTS: 'lots' }), (e: unknown) => e instanceof ConfigError && /RELAYER_RUNWAY_WARNING_PAYMENTS must be an integer/.test(e.message))
  assert.throws(() => runwayWarningSetting({ RELAYER_RUNWAY_WARNING_PAYMENTS: '-1' }), ConfigError)
})

test('below the warning level the guard warns once, writes the runway for /health, and still takes work; a top-up clears it', async () => {
  const publicClient = client()
  const { gasPerPayment } = await measurePaymentGas({ publicClient, settlementContract: chain.deployment.settlementContract, relayer })
  const gasPrice = await publicClient.getGasPrice()
  const testClient = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) })
  await testClient.setBalance({ address: relayer, value: gasPerPayment * gasPrice * 9_999n + 1n })

  const lines: { level: string; msg: string; runwayPayments?: string }[] = []
  const log = createLogger('info', {}, (line) => lines.push(JSON.parse(line)) > 0)
  const guard = createRelayerGuard({
    publicClient,
    sql: db.pool,
    relayer,
    fees: createFeeCache(publicClient),
    checkIntervalMs: 0,
    heartbeatMs: 0,
    log,
    runway: { settlementContract: chain.deployment.settlementContract, warnBelow: 10_000n, measureMs: 0 },
  })
  assert.equal(await guard.available(), true)
  assert.equal(await guard.available(), true)
  const warnings = lines.filter((l) => l.level === 'warn')
  assert.deepEqual(warnings.map((l) => [l.msg, l.runwayPayments]), [['relayer runway low: top up the relayer', '9999']])
  const status = await readRelayerStatus(db.pool)
  assert.deepEqual([status?.runwayPayments, status?.runwayLow, status?.available], ['9999', true, true])

  await testClient.setBalance({ address: relayer, value: gasPerPayment * gasPrice * 10_000n })
  assert.equal(await guard.available(), true)
  assert.deepEqual(lines.filter((l) => l.level === 'info').map((l) => l.msg), ['relayer runway back above the warning level'])
  const after = await readRelayerStatus(db.pool)
  assert.deepEqual([after?.runwayPayments, after?.runwayLow], ['10000', false])
})
