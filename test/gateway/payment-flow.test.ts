/**
 * The processor's whole wallet path with real parts: the SDK's WalletClient → gateway → PostgreSQL queue
 * → broadcast submitter → anvil → explorer. Also the relayer guard seen from a wallet, and two gateway
 * processes on one database; an acquiring pack through the same path.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { after, before, test } from 'node:test'
import { createTestClient, http, maxUint256, parseEther, parseEventLogs, type Hex, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { GatewayError } from '../../src/sdk/wallet/gateway-error.js'
import type { PaymentSession } from '../../src/sdk/wallet/payment-session.js'
import { WalletClient } from '../../src/sdk/wallet/wallet-client.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import { getJson, waitFor, startTestSubmitter, waitForFinal, scriptArgs } from '../../src/devnet/testing/index.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

let fx: GatewayFixture
let submitter: RunningSubmitter
const wallets: WalletClient[] = []

before(async () => {
  fx = await startGatewayFixture()
  submitter = await startTestSubmitter(fx.chain, fx.db, { SUBMITTER_BALANCE_CHECK_MS: '50' })
})
after(async () => {
  for (const wallet of wallets) wallet.disconnect()
  await submitter.stop()
  await fx.stop()
})

async function wallet(account: LocalAccount, wsUrl = fx.gateway.wsUrl): Promise<WalletClient> {
  const client = new WalletClient({ url: wsUrl, account, chainId: fx.chainId })
  await client.connect()
  wallets.push(client)
  return client
}

const session = (wsUrl: string): PaymentSession => fx.paymentSession({ principal: 12_500_000n, recipient: fx.chain.deployment.recipients[2]!, gatewayUrl: wsUrl }).session

const sessionToken = () => ({ ...fx.tokens[0]!.domain, domainSeparator: fx.tokens[0]!.domainSeparator })

test('WalletClient.pay through the gateway: statuses to SUCCESS, the explorer lists it, history shows it', async () => {
  const payer = fx.payers[0]!
  const client = await wallet(payer)
  const paying = session(fx.gateway.wsUrl)
  const statuses: string[] = []
  const final = await client.pay(paying, sessionToken(), { onStatus: (push) => statuses.push(push.status) })
  assert.equal(final.status, 'SUCCESS', JSON.stringify(final))
  assert.match(final.txHash ?? '', /^0x[0-9a-f]{64}$/)
  assert.deepEqual([...new Set(statuses)], ['ENQUEUING', 'PENDING', 'BROADCASTING', 'SUCCESS'])

  const address = payer.address.toLowerCase()
  const listed = await waitFor('the explorer to list the payment', async () => {
    const { body } = await fx.explorer.get(`/events?address=${address}&orderReference=${paying.orderReference}`)
    return body.events.length === 1 && body.events[0]
  })
  assert.equal(listed.txHash, final.txHash)
  assert.equal(listed.payer, address)
  assert.equal(listed.recipient, paying.beneficiary.toLowerCase())
  assert.equal(listed.amount, paying.principal)

  const history = await client.getHistory({ domainSeparators: [fx.tokens[0]!.domainSeparator], limit: 5 })
  const transfer = history.transfers.find((t) => t.txHash === final.txHash)
  assert.equal(transfer?.direction, 'OUT')
  assert.equal(transfer?.value, paying.principal)
})

test('an unfunded relayer: RELAYER_UNAVAILABLE to wallets and /health 503, a top-up resumes without restart', async () => {
  const relayer = privateKeyToAccount(fx.chain.deployment.relayerKey!).address
  const anvil = createTestClient({ mode: 'anvil', transport: http(fx.chain.rpcUrl) })
  await anvil.setBalance({ address: relayer, value: 0n })
  const degraded = await waitFor('/health to turn 503', async () => {
    const health = await getJson(fx.gateway.url, '/health')
    return health.status === 503 && health.body
  })
  assert.equal(degraded.status, 'degraded')
  assert.equal(degraded.relayer.address, relayer.toLowerCase())
  assert.equal(degraded.relayer.balance, '0')
  assert.ok(BigInt(degraded.relayer.minimum) > 0n)

  const client = await wallet(fx.payers[1]!)
  await assert.rejects(client.pay(session(fx.gateway.wsUrl), sessionToken()), (error: unknown) => error instanceof GatewayError && error.errorCode === 'RELAYER_UNAVAILABLE')

  await anvil.setBalance({ address: relayer, value: parseEther('100') })
  await waitFor('/health to recover', async () => (await getJson(fx.gateway.url, '/health')).status === 200)
  const final = await client.pay(session(fx.gateway.wsUrl), sessionToken())
  assert.equal(final.status, 'SUCCESS')
})

test('two gateway processes on one database: a payment through the second is submitted and its statuses reach it', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, scriptArgs('scripts/gateway.ts'), {
    env: {
      ...process.env,
      SUBMITTER: 'off',
      DATABASE_URL: fx.db.url,
      RPC_URL: fx.chain.rpcUrl,
      SETTLEMENT_CONTRACT: fx.contract,
      START_BLOCK: String(fx.chain.deployment.startBlock),
      EXPLORER_URL: fx.explorer.url,
      GATEWAY_PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  try {
    const wsUrl = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        // The logger cuts URL paths (a node key may live there): the port is what the line gives.
        const match = /"msg":"wallet gateway listening".*"wsUrl":"(ws:\/\/127\.0\.0\.1:\d+)\//.exec(line)
        if (match) resolve(`${match[1]}/ws`)
      })
      child.once('exit', (code) => reject(new Error(`second gateway exited with ${code}`)))
    })
    const [onFirst, onSecond] = await Promise.all([wallet(fx.payers[2]!), wallet(fx.payers[3]!, wsUrl)])
    const results = await Promise.all([onFirst.pay(session(fx.gateway.wsUrl), sessionToken()), onSecond.pay(session(wsUrl), sessionToken())])
    assert.deepEqual(results.map((r) => r.status), ['SUCCESS', 'SUCCESS'])
    const { rows } = await fx.db.pool.query<{ tx_hash: Hex }>('SELECT tx_hash FROM submissions WHERE payload_id = ANY($1)', [results.map((r) => r.payloadId)])
    assert.deepEqual(rows.map((r) => r.tx_hash).sort(), results.map((r) => r.txHash).sort())
  } finally {
    child.kill('SIGTERM')
  }
})

test('an acquiring pack through the gateway is submitted, mined, and registers the acquirer', async () => {
  const client = await wallet(fx.payers[4]!)
  const request = await fx.signedAcquiring(fx.payers[4]!, { token: fx.tokens[0]!, feePercent: 125 })
  const final = await client.follow(request.payloadId, () => client.submitAcquiring(request))
  assert.equal(final.status, 'SUCCESS', JSON.stringify(final))
  assert.equal(final.submissionType, 'ACQUIRING')
  const receipt = await fx.publicClient.getTransactionReceipt({ hash: final.txHash! })
  const [created] = parseEventLogs({ abi: settlementAbi, eventName: 'AcquirerCreated', logs: receipt.logs })
  assert.equal(created?.args.wallet.toLowerCase(), request.buyAcquiringPackParams.acquiring)
  assert.equal(created?.args.feePercent, 125n)
})

test('a permit deadline of 2^256 - 1 (the usual "never") is accepted, stored and mined', async () => {
  const payer = fx.payers[5]!
  const client = await fx.connect(payer)
  const request = await fx.signedPayment(payer, { token: fx.tokens[0]!, deadline: maxUint256 })
  const ack = await client.request('SUBMIT_PAYMENT', { transferRequest: request })
  assert.equal(ack.type, 'SUBMIT_PAYMENT_ACK', JSON.stringify(ack))
  const { rows } = await fx.db.pool.query<{ deadline: string }>('SELECT deadline::text FROM submissions WHERE payload_id = $1', [request.payloadId])
  assert.equal(rows[0]?.deadline, maxUint256.toString())
  const [row] = await waitForFinal(fx.db, [request.payloadId])
  assert.equal(row!.status, 'SUCCESS', JSON.stringify(row))
})
