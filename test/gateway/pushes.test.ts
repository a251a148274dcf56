/**
 * Pushes over real WebSockets: SUBMISSION_STATUS reaching the caller's socket on another gateway
 * process sharing the database when the submitter changes the row, and TRANSFER_NOTIFICATION and
 * BALANCE_UPDATE after real payments on anvil, compared with the chain read independently.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { findFreePort } from '../../src/platform/net/find-free-port.js'
import { deriveLocalKey } from '../../src/config/local-keys.js'
import { markFailed, markPending } from '../../src/processor/db/submitter-queue.js'
import { settlementsOnChain, startTestExplorer, waitFor, waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { pushes, type GatewayTestClient } from '../helpers/gateway-client.js'
import { expectedTransfer, startGatewayFixture, type GatewayFixture } from './fixture.js'

let f: GatewayFixture

before(async () => {
  f = await startGatewayFixture()
})
after(() => f.stop())

test('SUBMISSION_STATUS reaches the caller on another gateway process when the submission row changes', async () => {
  const payer = f.payers[10]!
  const elsewhere = await f.startGateway()
  const submitting = await f.connect(payer)
  const request = await f.signedPayment(payer, { token: f.tokens[0]! })
  assert.equal((await submitting.request('SUBMIT_PAYMENT', { transferRequest: request })).type, 'SUBMIT_PAYMENT_ACK')
  await submitting.close()

  const following = await f.connect(payer, elsewhere)
  assert.equal((await following.request('GET_NONCE', { domainSeparator: f.tokens[0]!.domainSeparator })).type, 'NONCE_RESULT')
  assert.deepEqual(await markPending(f.db.pool, [request.payloadId]), [request.payloadId])
  assert.deepEqual(await following.next((m) => m.type === 'SUBMISSION_STATUS'), {
    type: 'SUBMISSION_STATUS',
    payloadId: request.payloadId,
    submissionType: 'PAYMENT',
    status: 'PENDING',
  })
  await markFailed(f.db.pool, request.payloadId, 'SIMULATION_FAILED', 'eth_call reverted: InsufficientBalance')
  assert.deepEqual(await following.next((m) => m.type === 'SUBMISSION_STATUS' && m.status === 'FAILURE'), {
    type: 'SUBMISSION_STATUS',
    payloadId: request.payloadId,
    submissionType: 'PAYMENT',
    status: 'FAILURE',
    failureCategory: 'SIMULATION_FAILED',
    failureReason: 'eth_call reverted: InsufficientBalance',
  })
})

test('TRANSFER_NOTIFICATION and BALANCE_UPDATE after real payments, for the subscribed tokens only', async () => {
  const [usdc, eurc] = f.tokens as [GatewayFixture['tokens'][0], GatewayFixture['tokens'][0]]
  const recipient = privateKeyToAccount(deriveLocalKey('recipient', 0))
  // Of the 10 payments below, payer 0 pays recipient 0 in USDC (i = 0) and payer 5 pays it in EURC (i = 5).
  const [payer0, payer5] = [f.payers[0]!, f.payers[5]!]
  const both = [usdc.domainSeparator, eurc.domainSeparator]
  const clients: Record<string, GatewayTestClient> = {
    recipient: await f.connect(recipient),
    payer0: await f.connect(payer0),
    payer5: await f.connect(payer5),
  }
  const subscribe = async (client: GatewayTestClient, type: string, domainSeparators: Hex[]) =>
    assert.equal((await client.request(type, { domainSeparators })).type, `${type}_ACK`)
  await subscribe(clients.recipient!, 'SUBSCRIBE_TRANSFERS', both)
  await subscribe(clients.recipient!, 'SUBSCRIBE_BALANCE', both)
  await subscribe(clients.payer0!, 'SUBSCRIBE_TRANSFERS', [eurc.domainSeparator])
  await subscribe(clients.payer0!, 'SUBSCRIBE_BALANCE', [usdc.domainSeparator])
  await subscribe(clients.payer5!, 'SUBSCRIBE_TRANSFERS', [eurc.domainSeparator])
  await waitFor('the gateway to follow the explorer live feed', async () => {
    const metrics = await (await fetch(`${f.explorer.url}/metrics`)).text()
    return /^explorer_live_subscriptions [1-9]/m.test(metrics)
  })

  await sendSettlements(f.chain, 10)
  const onChain = await settlementsOnChain(f.chain)
  const toRecipient = onChain.filter((s) => s.recipient === recipient.address.toLowerCase())
  assert.equal(toRecipient.length, 2)

  const received = await waitFor('two notifications to the recipient', () => {
    const found = pushes(clients.recipient!, 'TRANSFER_NOTIFICATION')
    return found.length >= 2 && found
  })
  assert.deepEqual(received.map((m) => m.transfer), toRecipient.map((s) => expectedTransfer(s, 'IN')))
  const outOf5 = await clients.payer5!.next((m) => m.type === 'TRANSFER_NOTIFICATION')
  assert.deepEqual(outOf5.transfer, expectedTransfer(toRecipient.find((s) => s.payer === payer5.address.toLowerCase())!, 'OUT'))
  // Payer 0's payment was in USDC, dispatched together with the recipient's notification of it.
  assert.deepEqual(pushes(clients.payer0!, 'TRANSFER_NOTIFICATION'), [])

  const balanceOf = (token: Hex, holder: Hex) => f.publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'balanceOf', args: [holder] })
  const lastBalance = (client: GatewayTestClient, separator: Hex) => pushes(client, 'BALANCE_UPDATE').filter((m) => m.domainSeparator === separator).at(-1)?.balance
  for (const [client, holder, token] of [
    [clients.recipient!, recipient.address, usdc],
    [clients.recipient!, recipient.address, eurc],
    [clients.payer0!, payer0.address, usdc],
  ] as const) {
    const expected = (await balanceOf(token.address, holder)).toString()
    await waitFor(`the ${token.symbol} balance of ${holder}`, () => lastBalance(client, token.domainSeparator) === expected)
  }
  assert.deepEqual(pushes(clients.payer0!, 'BALANCE_UPDATE').map((m) => m.domainSeparator), [usdc.domainSeparator])
  assert.deepEqual(pushes(clients.payer5!, 'BALANCE_UPDATE'), [])
})

test('a gateway started before its explorer follows the live feed once the explorer comes up', async () => {
  const port = await findFreePort()
  const early = await f.startGateway({ EXPLORER_URL: `http://127.0.0.1:${port}` })
  const recipient = privateKeyToAccount(deriveLocalKey('recipient', 1))
  const client = await f.connect(recipient, early)
  assert.equal((await client.request('SUBSCRIBE_TRANSFERS', { domainSeparators: f.tokens.map((t) => t.domainSeparator) })).type, 'SUBSCRIBE_TRANSFERS_ACK')

  const late = await startTestExplorer(f.chain, { EXPLORER_PORT: String(port) })
  try {
    await waitForHead(f.chain, late.url)
    await waitFor('the gateway to subscribe to the late explorer', async () => /^explorer_live_subscriptions [1-9]/m.test(await (await fetch(`${late.url}/metrics`)).text()))
    // Recipient 1 is paid at i = 1 and 6 of these.
    const sent = await sendSettlements(f.chain, 7)
    // The late explorer's backfill of earlier settlements reaches the gateway as live ones too (recipient 1
    // was paid in the test before); what matters is that the new payments arrive.
    const expected = [sent[1]!.txHash, sent[6]!.txHash].map((h) => h.toLowerCase())
    await waitFor('notifications of both new payments', () => {
      const notified = pushes(client, 'TRANSFER_NOTIFICATION').map((m) => m.transfer.txHash)
      return expected.every((hash) => notified.includes(hash))
    })
  } finally {
    await early.stop()
    await late.stop()
  }
})
