/**
 * Refunds (issue 23) on a real chain, a real explorer and PostgreSQL, CONFIRMATION_BLOCKS 2: refunds are
 * paid on anvil by the charge's beneficiary (devnet recipient 0, signing with its local key) to the
 * charge's payer, and reconciliation settles them from the explorer's feed. Two partial refunds and the
 * rest of one charge, and a full refund of another, settle and the sums hold (in the API and in the
 * payer's token balance); a refund above what is left is a 409 problem naming what is; a reorg taking a
 * refund's settlement back reverts it (`refund.reverted`); expiry and cancellation free what a refund
 * reserved; bad inputs are problems, never a 500.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createPublicClient, erc20Abi, http, type Hex } from 'viem'
import type { ChargeJson, RefundJson } from '../../src/processor/charges/index.js'
import { deriveLocalKey } from '../../src/config/index.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/index.js'
import { waitFor, mine, minePast, mineUntil, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant
/** The key of devnet recipient 0, every test charge's beneficiary: the merchant's wallet. */
const merchantWalletKey = deriveLocalKey('recipient', 0)

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '2' })
  merchant = await f.createMerchant()
  // The merchant's wallet pays each refund's fees on top of what it received: fund it first.
  const token = f.chain.deployment.tokens[0]!
  await f.pay({ token: token.address, beneficiary: f.chain.deployment.recipients[0]!, amount: '1000000000', orderReference: randomBytes16(), acquirerId: ZERO_BYTES16 }, { payer: 5 })
})
after(() => f?.stop())

const get = async (path: string) => (await f.request(merchant.credentials, 'GET', path)).body

async function settledCharge(amount = '10000000'): Promise<ChargeJson> {
  const charge = await f.createCharge(merchant, { amount })
  await f.pay(charge)
  await f.waitForStatus(merchant, charge.id, 'confirming')
  await mine(f.chain, 2)
  return f.waitForStatus(merchant, charge.id, 'settled')
}

async function refund(chargeId: string, body: object, headers: Record<string, string> = {}) {
  return f.request(merchant.credentials, 'POST', `/api/v1/charges/${chargeId}/refunds`, { body, headers })
}

const refundIs = (id: string, status: string) => async () => {
  const body = (await get(`/api/v1/refunds/${id}`)) as RefundJson
  return body.status === status ? body : undefined
}

const waitForRefund = (id: string, status: string): Promise<RefundJson> => waitFor(`refund ${id} to be ${status}`, refundIs(id, status))

/** After a revert: the new branch grows until the reconciler takes the refund's settlement as gone. */
const mineUntilReverted = (id: string): Promise<RefundJson> => mineUntil(f.chain, `refund ${id} reverted`, refundIs(id, 'awaiting-signature'))

/** The merchant's wallet pays the refund on anvil; resolves once mined. */
const payRefund = (r: RefundJson) => f.pay({ ...r, beneficiary: r.recipient }, { payerKey: merchantWalletKey })

async function settle(r: RefundJson): Promise<RefundJson> {
  await payRefund(r)
  await waitForRefund(r.id, 'confirming')
  await mine(f.chain, 2)
  return waitForRefund(r.id, 'settled')
}

function balanceOf(token: Hex, owner: Hex): Promise<bigint> {
  return createPublicClient({ transport: http(f.chain.rpcUrl) }).readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
}

describe('refunds that settle', () => {
  test('two partial refunds and the rest: partially-refunded, then refunded; the payer got exactly the sums back', async () => {
    const charge = await settledCharge()
    const [payment] = (await get(`/api/v1/charges/${charge.id}/payments`)).payments
    const payer = payment.payer as Hex
    const before = await balanceOf(charge.token, payer)

    const first = await refund(charge.id, { amount: '3000000', reason: 'one item returned' })
    assert.equal(first.status, 201, JSON.stringify(first.body))
    const r1 = first.body as RefundJson
    assert.equal(first.headers.get('location'), `/api/v1/refunds/${r1.id}`)
    assert.match(r1.id, /^re_[0-9a-f]{24}$/)
    assert.deepEqual(
      { status: r1.status, chargeId: r1.chargeId, orderId: r1.orderId, amount: r1.amount, reason: r1.reason, payer: r1.payer, recipient: r1.recipient, token: r1.token, acquirerId: r1.acquirerId },
      { status: 'awaiting-signature', chargeId: charge.id, orderId: charge.orderId, amount: '3000000', reason: 'one item returned', payer: charge.beneficiary, recipient: payer, token: charge.token, acquirerId: ZERO_BYTES16 },
    )
    assert.equal(BigInt(r1.totalToPay), 3_000_000n + BigInt(r1.fees))
    assert.ok(BigInt(r1.fees) > 0n, 'the merchant pays the base fee on a refund')
    assert.notEqual(r1.orderReference, charge.orderReference)
    assert.equal(r1.widgetUrl, `http://127.0.0.1:4004/r/${r1.id}`)
    assert.match(r1.ephemeralToken!, /^et_/)

    const settled1 = await settle(r1)
    assert.ok(settled1.settlement!.confirmations >= 2)
    let now = (await get(`/api/v1/charges/${charge.id}`)) as ChargeJson
    assert.deepEqual([now.status, now.amountRefunded], ['partially-refunded', '3000000'])

    const r2 = (await refund(charge.id, { amount: '2000000' })).body as RefundJson
    assert.equal(r2.reason, null)
    await settle(r2)
    now = await get(`/api/v1/charges/${charge.id}`)
    assert.deepEqual([now.status, now.amountRefunded], ['partially-refunded', '5000000'])

    const over = await refund(charge.id, { amount: '5000001' })
    assert.equal(over.status, 409)
    assert.match(over.headers.get('content-type')!, /^application\/problem\+json/)
    assert.deepEqual([over.body.param, over.body.refundable], ['amount', '5000000'])

    const r3 = (await refund(charge.id, { amount: '5000000' })).body as RefundJson
    await settle(r3)
    now = await get(`/api/v1/charges/${charge.id}`)
    assert.deepEqual([now.status, now.amountRefunded], ['refunded', '10000000'])
    assert.equal((await balanceOf(charge.token, payer)) - before, 10_000_000n)

    const nothingLeft = await refund(charge.id, { amount: '1' })
    assert.deepEqual([nothingLeft.status, nothingLeft.body.refundable], [409, '0'])
    const listed = (await get(`/api/v1/charges/${charge.id}/refunds`)).refunds as RefundJson[]
    assert.deepEqual(listed.map((r) => [r.id, r.status, r.amount]), [[r3.id, 'settled', '5000000'], [r2.id, 'settled', '2000000'], [r1.id, 'settled', '3000000']])
    assert.deepEqual(await f.webhookTypes(charge.id), [
      'charge.confirming', 'charge.settled',
      'refund.created', 'refund.confirming', 'refund.settled',
      'refund.created', 'refund.confirming', 'refund.settled',
      'refund.created', 'refund.confirming', 'refund.settled',
    ])
    const { rows } = await f.db.pool.query(`SELECT payload FROM webhook_events WHERE charge_id = $1 AND type = 'refund.settled' ORDER BY sequence DESC LIMIT 1`, [charge.id])
    const data = (typeof rows[0].payload === 'string' ? JSON.parse(rows[0].payload) : rows[0].payload).data as RefundJson
    assert.deepEqual([data.id, data.status, data.settlement?.txHash], [r3.id, 'settled', (await get(`/api/v1/refunds/${r3.id}`)).settlement.txHash])
  })

  test('a full refund at once: refunded', async () => {
    const charge = await settledCharge('7000000')
    const full = (await refund(charge.id, { amount: '7000000' })).body as RefundJson
    await settle(full)
    const now = (await get(`/api/v1/charges/${charge.id}`)) as ChargeJson
    assert.deepEqual([now.status, now.amountRefunded], ['refunded', '7000000'])
  })
})

describe('what is left to refund', () => {
  test('a refund awaiting its signature reserves its amount; canceling it frees it', async () => {
    const charge = await settledCharge()
    const pending = (await refund(charge.id, { amount: '6000000' })).body as RefundJson
    const over = await refund(charge.id, { amount: '5000000' })
    assert.equal(over.status, 409)
    assert.equal(over.body.refundable, '4000000')
    const canceled = await f.request(merchant.credentials, 'POST', `/api/v1/refunds/${pending.id}/cancel`)
    assert.deepEqual([canceled.status, canceled.body.status], [200, 'canceled'])
    assert.equal((await f.request(merchant.credentials, 'POST', `/api/v1/refunds/${pending.id}/cancel`)).status, 409)
    assert.equal((await refund(charge.id, { amount: '10000000' })).status, 201)
    assert.deepEqual(await f.webhookTypes(charge.id), ['charge.confirming', 'charge.settled', 'refund.created', 'refund.canceled', 'refund.created'])
  })

  test('a refund not paid by its deadline expires and frees its amount', async () => {
    const charge = await settledCharge()
    const shortLived = await f.startCheckout({ CHARGE_TTL_SECONDS: '1' })
    const created = await f.request(merchant.credentials, 'POST', `/api/v1/charges/${charge.id}/refunds`, { body: { amount: '10000000' } }, shortLived)
    const r = created.body as RefundJson
    await minePast(f.chain, r.deadline)
    await waitForRefund(r.id, 'expired')
    assert.deepEqual((await f.webhookTypes(charge.id)).slice(2), ['refund.created', 'refund.expired'])
    assert.equal((await refund(charge.id, { amount: '10000000' })).status, 201)
    await shortLived.stop()
  })

  test('Idempotency-Key: the same key, charge and body give the same refund; another body is 422', async () => {
    const charge = await settledCharge()
    const headers = { 'idempotency-key': `refund-${charge.id}` }
    const first = await refund(charge.id, { amount: '1000' }, headers)
    const again = await refund(charge.id, { amount: '1000' }, headers)
    assert.deepEqual([again.status, again.body.id, again.headers.get('idempotent-replayed')], [201, first.body.id, 'true'])
    assert.notEqual(again.body.ephemeralToken, first.body.ephemeralToken)
    const other = await refund(charge.id, { amount: '1001' }, headers)
    assert.deepEqual([other.status, other.body.param], [422, 'Idempotency-Key'])
    assert.equal((await get(`/api/v1/charges/${charge.id}/refunds`)).refunds.length, 1)
  })
})

describe('a reorg', () => {
  test("taking a confirming refund's settlement back reverts it (refund.reverted); paid again, it settles", async () => {
    const charge = await settledCharge()
    const r = (await refund(charge.id, { amount: '4000000' })).body as RefundJson
    const snapshot = await f.rpc<string>('evm_snapshot')
    await payRefund(r)
    await waitForRefund(r.id, 'confirming')
    assert.equal(await f.rpc<boolean>('evm_revert', [snapshot]), true)
    const reverted = await mineUntilReverted(r.id)
    assert.equal(reverted.settlement, null)
    assert.deepEqual((await f.webhookTypes(charge.id)).slice(2), ['refund.created', 'refund.confirming', 'refund.reverted'])

    await f.resetRelayer()
    await settle(r)
    const now = (await get(`/api/v1/charges/${charge.id}`)) as ChargeJson
    assert.deepEqual([now.status, now.amountRefunded], ['partially-refunded', '4000000'])
    assert.deepEqual((await f.webhookTypes(charge.id)).slice(2), ['refund.created', 'refund.confirming', 'refund.reverted', 'refund.confirming', 'refund.settled'])
  })
})

describe('a deeper reorg', () => {
  test("taking a settled refund's settlement back reverts it and takes it out of the charge's amountRefunded", async () => {
    const charge = await settledCharge()
    const r = (await refund(charge.id, { amount: '10000000' })).body as RefundJson
    const snapshot = await f.rpc<string>('evm_snapshot')
    await settle(r)
    assert.deepEqual(Object.values(await pick(charge.id)), ['refunded', '10000000'])
    assert.equal(await f.rpc<boolean>('evm_revert', [snapshot]), true)
    await mineUntilReverted(r.id)
    assert.deepEqual(Object.values(await pick(charge.id)), ['settled', '0'])
    assert.deepEqual((await f.webhookTypes(charge.id)).slice(2), ['refund.created', 'refund.confirming', 'refund.settled', 'refund.reverted'])
    await f.resetRelayer()
  })
})

async function pick(chargeId: string) {
  const { status, amountRefunded } = (await get(`/api/v1/charges/${chargeId}`)) as ChargeJson
  return { status, amountRefunded }
}

describe('bad input is a problem, never a 500', () => {
  const problems: [string, (c: ChargeJson) => [string, object], number, string | undefined][] = [
    ['a negative amount', (c) => [c.id, { amount: '-1' }], 400, 'amount'],
    ['a decimal amount', (c) => [c.id, { amount: '1.5' }], 400, 'amount'],
    ['a zero amount', (c) => [c.id, { amount: '0' }], 400, 'amount'],
    ['an amount as a number', (c) => [c.id, { amount: 100 }], 400, 'amount'],
    ['an amount beyond uint256', (c) => [c.id, { amount: '9'.repeat(78) }], 400, 'amount'],
    ['no amount', (c) => [c.id, { reason: 'x' }], 400, 'amount'],
    ['an unknown field', (c) => [c.id, { amount: '1', currency: 'USDC' }], 400, 'currency'],
    ['a reason with a control character', (c) => [c.id, { amount: '1', reason: 'a\u0000b' }], 400, 'reason'],
    ['more than the charge paid', (c) => [c.id, { amount: '10000001' }], 409, 'amount'],
    ['a malformed charge id', () => ['ch_nope', { amount: '1' }], 400, 'id'],
    ['an unknown charge', () => [`ch_${'0'.repeat(24)}`, { amount: '1' }], 404, undefined],
  ]
  let settled: ChargeJson
  before(async () => {
    settled = await settledCharge()
  })
  for (const [name, input, status, param] of problems) {
    test(name, async () => {
      const [chargeId, body] = input(settled)
      const answer = await refund(chargeId, body)
      assert.equal(answer.status, status, JSON.stringify(answer.body))
      assert.match(answer.headers.get('content-type')!, /^application\/problem\+json/)
      assert.equal(answer.body.status, status)
      assert.equal(answer.body.param, param)
    })
  }

  test('a charge not paid yet, and one expired or canceled, cannot be refunded (409)', async () => {
    const unpaid = await f.createCharge(merchant)
    const answer = await refund(unpaid.id, { amount: '1' })
    assert.equal(answer.status, 409)
    assert.match(answer.body.detail, /awaiting-payment; only a settled charge can be refunded/)
    await f.request(merchant.credentials, 'POST', `/api/v1/charges/${unpaid.id}/cancel`)
    assert.equal((await refund(unpaid.id, { amount: '1' })).status, 409)
  })

  test("another merchant's charge and refund are unknown (404), and nothing is stored", async () => {
    const other = await f.createMerchant()
    const r = (await refund(settled.id, { amount: '1' })).body as RefundJson
    const answers = await Promise.all([
      f.request(other.credentials, 'POST', `/api/v1/charges/${settled.id}/refunds`, { body: { amount: '1' } }),
      f.request(other.credentials, 'GET', `/api/v1/charges/${settled.id}/refunds`),
      f.request(other.credentials, 'GET', `/api/v1/refunds/${r.id}`),
      f.request(other.credentials, 'POST', `/api/v1/refunds/${r.id}/cancel`),
    ])
    assert.deepEqual(answers.map((a) => [a.status, a.body.status]), [[404, 404], [404, 404], [404, 404], [404, 404]])
    assert.equal((await get(`/api/v1/charges/${settled.id}/refunds`)).refunds.length, 1)
    assert.equal((await f.request(merchant.credentials, 'GET', '/api/v1/refunds/re_bad')).status, 400)
  })
})
