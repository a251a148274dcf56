/**
 * The SDK's WalletClient against a real gateway, submitter, explorer and anvil: every request answers
 * what the chain says, pushes reach `onPush`, errors are typed, and a payment followed across a gateway
 * restart still resolves with its final status.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestClient, erc20Abi, http } from 'viem'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { findFreePort } from '../../src/platform/net/find-free-port.js'
import { anvilKeys } from '../../src/config/local-keys.js'
import { ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import type { ServerMessage } from '../../src/wire/gateway-messages.js'
import { GatewayError } from '../../src/sdk/wallet/gateway-error.js'
import { WalletClient } from '../../src/sdk/wallet/wallet-client.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import { waitFor, sendSettlements, startTestSubmitter } from '../../src/devnet/testing/index.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

let fx: GatewayFixture
let submitter: RunningSubmitter

before(async () => {
  fx = await startGatewayFixture()
  // sendSettlements below uses the devnet relayer directly: the submitter gets another key.
  submitter = await startTestSubmitter(fx.chain, fx.db, { RELAYER_PRIVATE_KEY: anvilKeys[2]! })
})
after(async () => {
  await submitter.stop()
  await fx.stop()
})

test('every request answers what the chain says; errors carry the gateway code', async () => {
  const payer = fx.payers[5]!
  const token = fx.tokens[1]!
  const client = new WalletClient({ url: fx.gateway.wsUrl, account: payer, chainId: fx.chainId })
  await client.connect()
  try {
    const read = <T>(args: Parameters<typeof fx.publicClient.readContract>[0]) => fx.publicClient.readContract(args) as Promise<T>
    assert.equal(await client.getNonce(token.domainSeparator), await read<bigint>({ address: token.address, abi: stablecoinAbi, functionName: 'nonces', args: [payer.address] }))
    const acquirer = fx.chain.deployment.acquirers[0]!.id
    const [principal, totalFees] = await read<[bigint, bigint]>({ address: fx.contract, abi: settlementAbi, functionName: 'breakdownTransferAmount', args: [100_000_000n, acquirer] })
    assert.deepEqual(await client.getFees(token.domainSeparator, 100_000_000n, acquirer), { fees: totalFees, remaining: principal, total: 100_000_000n })
    const fee = await read<bigint>({ address: fx.contract, abi: settlementAbi, functionName: 'calculateFees', args: [7_000_000n, ZERO_BYTES16] })
    assert.deepEqual(await client.getFees(token.domainSeparator, 7_000_000n, ZERO_BYTES16, 'PRINCIPAL'), { fees: fee, remaining: 7_000_000n, total: 7_000_000n + fee })
    const balance = await read<bigint>({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [payer.address] })
    assert.deepEqual(await client.getBalance([token.domainSeparator]), [{ domainSeparator: token.domainSeparator, balance }])
    await assert.rejects(client.getSubmissionStatus('no-such-payload'), (e: unknown) => e instanceof GatewayError && e.errorCode === 'UNKNOWN_PAYLOAD_ID' && e.errorCategory === 'NOT_FOUND')
    await assert.rejects(client.getNonce(`0x${'12'.repeat(32)}`), (e: unknown) => e instanceof GatewayError && e.errorCode === 'UNSUPPORTED_TOKEN')
  } finally {
    client.disconnect()
  }
})

test('subscriptions deliver TRANSFER_NOTIFICATION and BALANCE_UPDATE to onPush; unsubscribe is acknowledged', async () => {
  const payer = fx.payers[6]!
  const token = fx.tokens[0]!
  const client = new WalletClient({ url: fx.gateway.wsUrl, account: payer, chainId: fx.chainId })
  await client.connect()
  const pushes: ServerMessage[] = []
  client.onPush((push) => pushes.push(push))
  try {
    assert.deepEqual(await client.subscribe('TRANSFERS', [token.domainSeparator]), [token.domainSeparator])
    assert.deepEqual(await client.subscribe('BALANCE', [token.domainSeparator]), [token.domainSeparator])
    const [sent] = await sendSettlements(fx.chain, 1, { recipient: () => payer.address, acquirerEvery: 1000 })
    const notified = await waitFor('a transfer notification', () => pushes.find((p) => p.type === 'TRANSFER_NOTIFICATION' && p.transfer.txHash === sent!.txHash))
    assert.equal(notified.type === 'TRANSFER_NOTIFICATION' && notified.transfer.direction, 'IN')
    const balance = await fx.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [payer.address] })
    await waitFor('a balance update', () => pushes.some((p) => p.type === 'BALANCE_UPDATE' && p.balance === balance.toString()))
    assert.deepEqual(await client.unsubscribe('TRANSFERS', [token.domainSeparator]), [token.domainSeparator])
  } finally {
    client.disconnect()
  }
})

test('a payment followed across a gateway restart resolves with its final status after the reconnect', { timeout: 60_000 }, async () => {
  const port = await findFreePort()
  let gateway = await fx.startGateway({ GATEWAY_PORT: String(port) })
  const payer = fx.payers[7]!
  const client = new WalletClient({ url: gateway.wsUrl, account: payer, chainId: fx.chainId, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } })
  await client.connect()
  const anvil = createTestClient({ mode: 'anvil', transport: http(fx.chain.rpcUrl) })
  await anvil.setAutomine(false)
  try {
    const statuses: string[] = []
    const { session, token } = fx.paymentSession({ principal: 3_000_000n, gatewayUrl: gateway.wsUrl })
    const paying = client.pay(session, token, { onStatus: (push) => statuses.push(push.status) })
    await waitFor('the payment to be broadcast', () => statuses.includes('BROADCASTING'))
    await gateway.stop()
    await anvil.mine({ blocks: 1 })
    gateway = await fx.startGateway({ GATEWAY_PORT: String(port) })
    const final = await paying
    assert.equal(final.status, 'SUCCESS')
    assert.match(final.txHash ?? '', /^0x[0-9a-f]{64}$/)
  } finally {
    await anvil.setAutomine(true)
    client.disconnect()
  }
})
