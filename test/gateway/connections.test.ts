/**
 * Connection rules and health, over real WebSockets and HTTP: one connection per address (4001, on one
 * gateway and across two sharing the database), the first signed message in time (4002), idleness (4003),
 * shutdown (1001), /health and /ready following the relayer status the submitter writes (RELAYER_UNAVAILABLE
 * while it is degraded), and /metrics.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { writeRelayerStatus } from '../../src/processor/db/relayer-status.js'
import { getJson, waitFor, startTestSubmitter } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

let f: GatewayFixture
let usdc: Hex

before(async () => {
  f = await startGatewayFixture()
  usdc = f.tokens[0]!.domainSeparator
})
after(() => f.stop())

const nonce = (client: Awaited<ReturnType<GatewayFixture['connect']>>) => client.request('GET_NONCE', { domainSeparator: usdc })

test('a second connection for an address supersedes the first (4001); other addresses are not affected', async () => {
  const [wallet, bystander] = [f.payers[0]!, f.payers[1]!]
  const first = await f.connect(wallet)
  const other = await f.connect(bystander)
  assert.equal((await nonce(first)).type, 'NONCE_RESULT')
  assert.equal((await nonce(other)).type, 'NONCE_RESULT')
  const second = await f.connect(wallet)
  assert.equal((await nonce(second)).type, 'NONCE_RESULT')
  assert.deepEqual(await first.waitClosed(), { code: 4001, reason: 'superseded' })
  assert.equal((await nonce(second)).type, 'NONCE_RESULT')
  assert.equal((await nonce(other)).type, 'NONCE_RESULT')
  assert.equal(other.closed, undefined)
})

test('a connection on another gateway process sharing the database supersedes one here', async () => {
  const wallet = f.payers[2]!
  const elsewhere = await f.startGateway()
  const here = await f.connect(wallet)
  assert.equal((await nonce(here)).type, 'NONCE_RESULT')
  const there = await f.connect(wallet, elsewhere)
  assert.equal((await nonce(there)).type, 'NONCE_RESULT')
  assert.deepEqual(await here.waitClosed(), { code: 4001, reason: 'superseded' })
  assert.equal((await nonce(there)).type, 'NONCE_RESULT')
  assert.equal(there.closed, undefined)
})

test('without a valid signed message in time the connection is closed (4002); bad messages do not count', async () => {
  const quick = await f.startGateway({ GATEWAY_FIRST_MESSAGE_SECONDS: '1' })
  const silent = await f.connect(f.payers[3]!, quick)
  const noisy = await f.connect(f.payers[4]!, quick)
  const signed = await f.connect(f.payers[5]!, quick)
  noisy.sendRaw('not json')
  const expired = await noisy.request('GET_NONCE', { domainSeparator: usdc }, { deadline: Math.floor(Date.now() / 1000) - 100 })
  assert.equal(expired.errorCode, 'EXPIRED_DEADLINE')
  assert.equal((await nonce(signed)).type, 'NONCE_RESULT')
  for (const client of [silent, noisy]) {
    const closed = await client.waitClosed()
    assert.equal(closed.code, 4002)
    assert.match(closed.reason, /no valid signed message within 1 s/)
  }
  assert.equal(signed.closed, undefined)
})

test('a connection silent for GATEWAY_IDLE_SECONDS is closed (4003)', async () => {
  const idle = await f.startGateway({ GATEWAY_IDLE_SECONDS: '1' })
  const client = await f.connect(f.payers[6]!, idle)
  assert.equal((await nonce(client)).type, 'NONCE_RESULT')
  assert.deepEqual(await client.waitClosed(), { code: 4003, reason: 'idle for 1 s' })
})

test('stopping the gateway closes its connections with 1001', async () => {
  const stopping = await f.startGateway()
  const client = await f.connect(f.payers[7]!, stopping)
  assert.equal((await nonce(client)).type, 'NONCE_RESULT')
  await stopping.stop()
  assert.equal((await client.waitClosed()).code, 1001)
})

test('/health and /ready follow the relayer status: ok, degraded 503 with RELAYER_UNAVAILABLE for new submissions, ok again after a top-up', async () => {
  const payer = f.payers[8]!
  const client = await f.connect(payer)
  assert.equal((await nonce(client)).type, 'NONCE_RESULT')
  const ok = await getJson(f.gateway.url, '/health')
  assert.equal(ok.status, 200)
  assert.equal(ok.body.status, 'ok')
  assert.equal(ok.body.connections, f.gateway.connections())
  assert.ok(ok.body.connections >= 1)
  const ready = await getJson(f.gateway.url, '/ready')
  assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }])

  const relayer = `0x${'ab'.repeat(20)}` as Hex
  await writeRelayerStatus(f.db.pool, { relayer, balance: '5', minimum: '1000', available: false }, true)
  const degraded = await waitFor('a degraded /health', async () => {
    const health = await getJson(f.gateway.url, '/health')
    return health.status === 503 && health
  })
  assert.deepEqual(degraded.body, { status: 'degraded', connections: f.gateway.connections(), relayer: { address: relayer, balance: '5', minimum: '1000' } })
  const notReady = await getJson(f.gateway.url, '/ready')
  assert.equal(notReady.status, 503)
  assert.equal(notReady.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.match(notReady.body.detail, /holds 5 wei, below the minimum 1000: submissions are refused$/)
  const refused = await client.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(payer, { token: f.tokens[0]! }) })
  assert.equal(refused.errorCode, 'RELAYER_UNAVAILABLE')
  assert.equal(refused.errorCategory, 'SEMANTIC_ERROR')

  // Written without a notification: the periodic re-read picks it up.
  await writeRelayerStatus(f.db.pool, { relayer, balance: '5000', minimum: '1000', available: true }, false)
  const recovered = await waitFor('/health ok again', async () => {
    const health = await getJson(f.gateway.url, '/health')
    return health.status === 200 && health
  })
  assert.equal(recovered.body.status, 'ok')
  assert.deepEqual((await getJson(f.gateway.url, '/ready')).body, { status: 'ready' })
  assert.deepEqual({ ...recovered.body.relayer, updatedAt: undefined }, { address: relayer, balance: '5000', minimum: '1000', updatedAt: undefined })
  const accepted = await client.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(payer, { token: f.tokens[0]! }) })
  assert.equal(accepted.type, 'SUBMIT_PAYMENT_ACK')

  // A runway below the warning level shows on /health, which stays ok: only the minimum stops work.
  await writeRelayerStatus(f.db.pool, { relayer, balance: '5000', minimum: '1000', available: true, runwayPayments: '9999', runwayLow: true }, true)
  const low = await waitFor('/health showing the low runway', async () => {
    const health = await getJson(f.gateway.url, '/health')
    return health.body.relayer?.runwayPayments !== undefined && health
  })
  assert.deepEqual([low.status, low.body.status, low.body.relayer.runwayPayments], [200, 'ok', '9999'])
  await writeRelayerStatus(f.db.pool, { relayer, balance: '9000', minimum: '1000', available: true, runwayPayments: '10000', runwayLow: false }, true)
  await waitFor('/health without a runway once it is above the warning level', async () => {
    const health = await getJson(f.gateway.url, '/health')
    return health.body.relayer?.balance === '9000' && !('runwayPayments' in health.body.relayer)
  })
})

test('a relayer status no submitter refreshes goes stale: /health 503 and RELAYER_UNAVAILABLE, ok again when a submitter reports', async () => {
  const watching = await f.startGateway({ GATEWAY_RELAYER_STALE_MS: '1500' })
  const payer = f.payers[9]!
  const client = await f.connect(payer, watching)
  const relayer = privateKeyToAccount(f.chain.deployment.relayerKey!).address.toLowerCase()
  const heartbeat = { SUBMITTER_HEARTBEAT_MS: '200', SUBMITTER_BALANCE_CHECK_MS: '50' }
  let submitter = await startTestSubmitter(f.chain, f.db, heartbeat)
  await waitFor('/health to show the live submitter', async () => {
    const health = await getJson(watching.url, '/health')
    return health.status === 200 && health.body.relayer?.address === relayer
  })
  await submitter.stop()
  // Every submitter is gone: the last status says "available" but nobody will send what is accepted now.
  const stopped = Date.now()
  const degraded = await waitFor('a degraded /health after the submitter stopped', async () => {
    const health = await getJson(watching.url, '/health')
    return health.status === 503 && health
  }, 6_000)
  assert.ok(Date.now() - stopped >= 1000, 'not before the status is about three heartbeats old')
  assert.equal(degraded.body.status, 'degraded')
  assert.equal(degraded.body.relayer.address, relayer)
  assert.equal(degraded.body.relayer.stale, true)
  const refused = await client.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(payer, { token: f.tokens[0]! }) })
  assert.equal(refused.errorCode, 'RELAYER_UNAVAILABLE')
  assert.match(refused.message, /no submitter/)

  submitter = await startTestSubmitter(f.chain, f.db, heartbeat)
  try {
    await waitFor('/health ok again', async () => (await getJson(watching.url, '/health')).status === 200)
    const accepted = await client.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(payer, { token: f.tokens[0]! }) })
    assert.equal(accepted.type, 'SUBMIT_PAYMENT_ACK')
  } finally {
    await submitter.stop()
  }
})

test('/metrics is Prometheus text with the open connections, the relayer availability and the process', async () => {
  const client = await f.connect(f.payers[10]!)
  assert.equal((await nonce(client)).type, 'NONCE_RESULT')
  const response = await fetch(`${f.gateway.url}/metrics`)
  const samples = checkPrometheusText({ status: response.status, headers: response.headers, body: await response.text() }, 'gateway')
  assert.equal(samples.get('gateway_connections'), f.gateway.connections())
  assert.ok(samples.get('gateway_connections')! >= 1)
  assert.ok([0, 1].includes(samples.get('gateway_relayer_available')!))
})

test('anything but /ws and /health is a 404 problem', async () => {
  const missing = await getJson(f.gateway.url, '/nothing')
  assert.equal(missing.status, 404)
  assert.equal(missing.body.status, 404)
})

test('a node serving another chain than CHAIN_ID stops start-up with one line', async () => {
  await assert.rejects(f.startGateway({ CHAIN_ID: '8453' }), /^ConfigError: CHAIN_ID is 8453 but RPC_URL .* serves chain 31337$/)
})
