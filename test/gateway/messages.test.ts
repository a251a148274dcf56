/**
 * Every client message and its answer, over a real WebSocket to a real gateway on anvil, with the values
 * compared to what the chain reports when read independently with viem (and, for history, to every
 * PermittedTransfer log on the chain).
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { deriveLocalKey } from '../../src/config/local-keys.js'
import { findSubmission } from '../../src/processor/db/submissions.js'
import type { Transfer } from '../../src/wire/gateway-messages.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { settlementsOnChain, waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { expectedTransfer, startGatewayFixture, type GatewayFixture } from './fixture.js'

let f: GatewayFixture
/** The devnet's first recipient: paid in both tokens by the settlements sent below. */
const recipient = privateKeyToAccount(deriveLocalKey('recipient', 0))
let onChain: Settlement[]

before(async () => {
  f = await startGatewayFixture()
  // 40 payments: payer i % 20, token i % 2, recipient i % 5 — recipient 0 gets both tokens, payer 0 pays twice.
  await sendSettlements(f.chain, 40)
  await waitForHead(f.chain, f.explorer.url)
  onChain = await settlementsOnChain(f.chain)
})
after(() => f.stop())

const read = {
  nonce: (token: Hex, owner: Hex) => f.publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [owner] }),
  balance: (token: Hex, owner: Hex) => f.publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'balanceOf', args: [owner] }),
}

test('GET_NONCE answers the token permit nonce of the caller', async () => {
  const payer = f.payers[0]!
  const client = await f.connect(payer)
  for (const token of f.tokens) {
    const answer = await client.request('GET_NONCE', { domainSeparator: token.domainSeparator })
    assert.equal(answer.type, 'NONCE_RESULT')
    assert.equal(answer.nonce, (await read.nonce(token.address, payer.address)).toString())
  }
  assert.notEqual((await client.request('GET_NONCE', { domainSeparator: f.tokens[0]!.domainSeparator })).nonce, '0', 'payer 0 has paid in USDC')
})

test('GET_FEES breaks a total down as the contract does, and with amountIs PRINCIPAL puts the fees on top', async () => {
  const client = await f.connect(f.payers[1]!)
  const { domainSeparator } = f.tokens[0]!
  for (const acquirerId of [ZERO_BYTES16, f.chain.deployment.acquirers[1]!.id]) {
    const total = await client.request('GET_FEES', { domainSeparator, amount: '12345678', acquirerId })
    const [principal, fees] = await f.publicClient.readContract({ address: f.contract, abi: settlementAbi, functionName: 'breakdownTransferAmount', args: [12_345_678n, acquirerId] })
    assert.deepEqual({ type: total.type, brokenDownAmount: total.brokenDownAmount, total: total.total }, {
      type: 'FEES_RESULT',
      brokenDownAmount: { fees: fees.toString(), remaining: principal.toString() },
      total: '12345678',
    })
    const onTop = await client.request('GET_FEES', { domainSeparator, amount: '10000000', acquirerId, amountIs: 'PRINCIPAL' })
    const fee = await f.publicClient.readContract({ address: f.contract, abi: settlementAbi, functionName: 'calculateFees', args: [10_000_000n, acquirerId] })
    assert.deepEqual(onTop.brokenDownAmount, { fees: fee.toString(), remaining: '10000000' })
    assert.equal(onTop.total, (10_000_000n + fee).toString())
  }
})

test('GET_BALANCE answers balanceOf for each listed token', async () => {
  const payer = f.payers[2]!
  const client = await f.connect(payer)
  const answer = await client.request('GET_BALANCE', { domainSeparators: f.tokens.map((t) => t.domainSeparator) })
  assert.equal(answer.type, 'BALANCE_RESULT')
  const expected = await Promise.all(f.tokens.map(async (t) => ({ domainSeparator: t.domainSeparator, balance: (await read.balance(t.address, payer.address)).toString() })))
  assert.deepEqual(answer.balances, expected)
})

/** What GET_HISTORY should answer for `wallet` over `tokens`: its settlements, newest first. */
function expectedHistory(wallet: Hex, tokens: Hex[]): Transfer[] {
  const address = wallet.toLowerCase()
  return onChain
    .filter((s) => (s.payer === address || s.recipient === address) && tokens.includes(s.token))
    .reverse()
    .map((s) => expectedTransfer(s, s.payer === address ? 'OUT' : 'IN'))
}

async function wholeHistory(client: Awaited<ReturnType<GatewayFixture['connect']>>, domainSeparators: Hex[], limit: number) {
  const transfers: Transfer[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const answer = await client.request('GET_HISTORY', { domainSeparators, limit, ...(cursor ? { cursor } : {}) })
    assert.equal(answer.type, 'HISTORY_RESULT')
    assert.ok(answer.transfers.length <= limit)
    transfers.push(...answer.transfers)
    cursor = answer.nextCursor ?? undefined
    pages++
  } while (cursor)
  return { transfers, pages }
}

test('GET_HISTORY pages through the caller settlements, one token or several, newest first', async () => {
  const client = await f.connect(recipient)
  const [usdc, eurc] = f.tokens as [GatewayFixture['tokens'][0], GatewayFixture['tokens'][0]]
  const both = expectedHistory(recipient.address, [usdc.address, eurc.address])
  assert.equal(both.length, 8)
  assert.ok(both.some((t) => t.domainSeparator === usdc.domainSeparator) && both.some((t) => t.domainSeparator === eurc.domainSeparator))

  const first = await client.request('GET_HISTORY', { domainSeparators: [usdc.domainSeparator, eurc.domainSeparator] })
  assert.deepEqual(first.transfers, both, 'default limit 20 holds all 8')
  assert.equal(first.nextCursor, null)

  const paged = await wholeHistory(client, [eurc.domainSeparator, usdc.domainSeparator], 3)
  assert.deepEqual(paged.transfers, both)
  assert.equal(paged.pages, 3)
  assert.deepEqual((await wholeHistory(client, [eurc.domainSeparator], 2)).transfers, expectedHistory(recipient.address, [eurc.address]))
})

test('GET_HISTORY marks the caller payments OUT', async () => {
  const payer = f.payers[0]!
  const client = await f.connect(payer)
  const answer = await client.request('GET_HISTORY', { domainSeparators: f.tokens.map((t) => t.domainSeparator) })
  const expected = expectedHistory(payer.address, f.tokens.map((t) => t.address))
  assert.equal(expected.length, 2)
  assert.deepEqual(answer.transfers, expected)
  assert.ok(answer.transfers.every((t: Transfer) => t.direction === 'OUT'))
})

test('SUBMIT_PAYMENT queues a valid payment: ACK ENQUEUING, the status pushed, the row stored', async () => {
  const payer = f.payers[3]!
  const client = await f.connect(payer)
  const request = await f.signedPayment(payer, { token: f.tokens[1]! })
  const ack = await client.request('SUBMIT_PAYMENT', { transferRequest: request })
  assert.deepEqual({ ...ack, requestId: undefined }, { type: 'SUBMIT_PAYMENT_ACK', requestId: undefined, payloadId: request.payloadId, status: 'ENQUEUING' })
  const push = await client.next((m) => m.type === 'SUBMISSION_STATUS' && m.requestId === undefined)
  assert.deepEqual(push, { type: 'SUBMISSION_STATUS', payloadId: request.payloadId, submissionType: 'PAYMENT', status: 'ENQUEUING' })
  const row = await findSubmission(f.db.pool, request.payloadId)
  assert.equal(row?.status, 'ENQUEUING')
  assert.equal(row?.callerAddress, payer.address.toLowerCase())
  assert.deepEqual(row?.request, request)

  const status = await client.request('GET_SUBMISSION_STATUS', { payloadId: request.payloadId })
  assert.deepEqual({ ...status, requestId: undefined }, { type: 'SUBMISSION_STATUS', requestId: undefined, payloadId: request.payloadId, submissionType: 'PAYMENT', status: 'ENQUEUING' })
})

test('SUBMIT_ACQUIRING queues a signed acquiring pack', async () => {
  const payer = f.payers[4]!
  const client = await f.connect(payer)
  const request = await f.signedAcquiring(payer, { token: f.tokens[0]!, feePercent: 150 })
  const ack = await client.request('SUBMIT_ACQUIRING', { buyAcquiringPackRequest: request })
  assert.equal(ack.type, 'SUBMIT_ACQUIRING_ACK')
  assert.equal(ack.payloadId, request.payloadId)
  assert.equal(ack.status, 'ENQUEUING')
  assert.equal((await findSubmission(f.db.pool, request.payloadId))?.kind, 'ACQUIRING')
})

test('SUBSCRIBE_BALANCE, SUBSCRIBE_TRANSFERS and UNSUBSCRIBE are acknowledged with their separators', async () => {
  const client = await f.connect(f.payers[5]!)
  const separators = f.tokens.map((t) => t.domainSeparator)
  for (const type of ['SUBSCRIBE_BALANCE', 'SUBSCRIBE_TRANSFERS']) {
    const ack = await client.request(type, { domainSeparators: separators })
    assert.equal(ack.type, `${type}_ACK`)
    assert.deepEqual(ack.subscribedSeparators, separators)
  }
  const one = await client.request('UNSUBSCRIBE', { channel: 'TRANSFERS', domainSeparators: [separators[0]] })
  assert.deepEqual({ type: one.type, unsubscribed: one.unsubscribedSeparators }, { type: 'UNSUBSCRIBE_ACK', unsubscribed: [separators[0]] })
  assert.deepEqual((await client.request('UNSUBSCRIBE', { channel: 'TRANSFERS', domainSeparators: [separators[0]] })).unsubscribedSeparators, [])
  assert.deepEqual((await client.request('UNSUBSCRIBE', { channel: 'BALANCE', domainSeparators: [] })).unsubscribedSeparators, separators)
})
