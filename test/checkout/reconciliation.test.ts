/**
 * Reconciliation with real payments signed on anvil and a real explorer, CONFIRMATION_BLOCKS 2: a charge
 * goes confirming when its settlement is seen and settled two blocks later; expiry once a block past the
 * deadline is indexed (a second replica with a 1 s TTL creates the charge, the active reconciler expires it); cancellation;
 * underpaid, wrong-token and wrong-recipient payments recorded without settling; a reorg reverting a
 * confirming charge; late and second payments reported, never lost. The webhook events of each charge
 * are checked in order in the outbox.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Hex } from 'viem'
import type { ChargeJson, PaymentJson } from '../../src/processor/charges/index.js'
import { waitFor, mine, minePast, mineUntil, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '2' })
  merchant = await f.createMerchant()
})
after(() => f?.stop())

async function charge(path: string): Promise<ChargeJson> {
  return (await f.request(merchant.credentials, 'GET', path)).body
}

/** Waits until the charge has `count` payments recorded and returns them. */
function paymentsOf(id: string, count: number): Promise<PaymentJson[]> {
  return waitFor(`${count} payment(s) recorded on ${id}`, async () => {
    const { payments } = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${id}/payments`)).body as { payments: PaymentJson[] }
    return payments.length >= count ? payments : undefined
  })
}

describe('a payment that agrees', () => {
  test('confirming when seen, settled after CONFIRMATION_BLOCKS blocks on top of it', async () => {
    const created = await f.createCharge(merchant)
    const txHash = await f.pay(created)
    const confirming = await f.waitForStatus(merchant, created.id, 'confirming')
    assert.equal(confirming.settlement!.txHash, txHash)
    assert.equal(confirming.settlement!.confirmations, 0)

    await mine(f.chain, 1)
    await waitFor('one confirmation', async () => (await charge(`/api/v1/charges/${created.id}`)).settlement?.confirmations === 1)
    assert.equal((await charge(`/api/v1/charges/${created.id}`)).status, 'confirming')

    await mine(f.chain, 1)
    const settled = await f.waitForStatus(merchant, created.id, 'settled')
    assert.deepEqual({ ...settled.settlement, confirmations: undefined }, { ...confirming.settlement, confirmations: undefined })
    assert.ok(settled.settlement!.confirmations >= 2)
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.settled'])
    const [payment] = await paymentsOf(created.id, 1)
    assert.equal(payment!.outcome, 'matched')
    assert.deepEqual(payment!.mismatch, [])
    assert.equal(payment!.beforeDeadline, true)
  })

  test('paying more than the amount settles too', async () => {
    const created = await f.createCharge(merchant, { amount: '3000000' })
    await f.pay(created, { principal: 3_000_001n })
    await f.waitForStatus(merchant, created.id, 'confirming')
    await mine(f.chain, 2)
    await f.waitForStatus(merchant, created.id, 'settled')
  })
})

describe('payments that disagree are recorded and settle nothing', () => {
  const cases: [string, (c: ChargeJson) => { token?: Hex; recipient?: Hex; principal?: bigint }, string[]][] = [
    ['underpaid', (c) => ({ principal: BigInt(c.amount) - 1n }), ['underpaid']],
    ['wrong token', () => ({ token: f.chain.deployment.tokens[1]!.address }), ['wrong-token']],
    ['wrong recipient', () => ({ recipient: f.chain.deployment.recipients[1]! }), ['wrong-recipient']],
    ['wrong recipient and underpaid', (c) => ({ recipient: f.chain.deployment.recipients[1]!, principal: BigInt(c.amount) / 2n }), ['wrong-recipient', 'underpaid']],
  ]
  for (const [name, payment, mismatch] of cases) {
    test(name, async () => {
      const created = await f.createCharge(merchant)
      const txHash = await f.pay(created, payment(created))
      const [recorded] = await paymentsOf(created.id, 1)
      assert.equal(recorded!.txHash, txHash)
      assert.equal(recorded!.outcome, 'mismatched')
      assert.deepEqual(recorded!.mismatch, mismatch)
      await mine(f.chain, 3)
      const after = await charge(`/api/v1/charges/${created.id}`)
      assert.equal(after.status, 'awaiting-payment')
      assert.equal(after.settlement, null)
      assert.deepEqual(await f.webhookTypes(created.id), [])
    })
  }
})

describe('expiry and cancellation', () => {
  test('a charge still awaiting payment at its deadline expires; a payment after that is a late payment', async () => {
    const shortLived = await f.startCheckout({ CHARGE_TTL_SECONDS: '1' })
    assert.equal(shortLived.reconcilerRole(), 'standby')
    const created = (await f.request(merchant.credentials, 'POST', '/api/v1/charges', {
      body: { amount: '5000000', token: f.chain.deployment.tokens[0]!.address, beneficiary: f.chain.deployment.recipients[0]!, currency: f.chain.deployment.tokens[0]!.symbol, orderId: `short-${Date.now()}` },
    }, shortLived)).body as ChargeJson
    assert.equal(Date.parse(created.deadline) - Date.parse(created.createdAt), 1000)
    // Expiry goes by the chain's clock as the feed has passed it: a block stamped after the deadline.
    await minePast(f.chain, created.deadline)
    await f.waitForStatus(merchant, created.id, 'expired')
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.expired'])

    await f.pay(created)
    const [late] = await paymentsOf(created.id, 1)
    assert.equal(late!.outcome, 'late')
    // Block timestamps are whole seconds: a payment mined in the deadline's second counts as before it.
    assert.equal(late!.beforeDeadline, late!.timestamp * 1000 <= Date.parse(created.deadline))
    await waitFor('the late payment webhook', async () => (await f.webhookTypes(created.id)).length === 2)
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.expired', 'charge.late_payment'])
    const { rows } = await f.db.pool.query(`SELECT payload FROM webhook_events WHERE charge_id = $1 AND type = 'charge.late_payment'`, [created.id])
    const data = (typeof rows[0].payload === 'string' ? JSON.parse(rows[0].payload) : rows[0].payload).data
    assert.equal(data.status, 'expired')
    assert.deepEqual(data.payment, late)
    assert.equal((await charge(`/api/v1/charges/${created.id}`)).status, 'expired')
    await shortLived.stop()
  })

  test('a canceled charge stays canceled when paid; the payment is reported late', async () => {
    const created = await f.createCharge(merchant)
    assert.equal((await f.request(merchant.credentials, 'POST', `/api/v1/charges/${created.id}/cancel`)).status, 200)
    await f.pay(created)
    const [late] = await paymentsOf(created.id, 1)
    assert.equal(late!.outcome, 'late')
    assert.equal(late!.beforeDeadline, true)
    await waitFor('the late payment webhook', async () => (await f.webhookTypes(created.id)).length === 2)
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.canceled', 'charge.late_payment'])
    assert.equal((await charge(`/api/v1/charges/${created.id}`)).status, 'canceled')
  })

  test('a second payment of a settled charge is recorded and reported', async () => {
    const created = await f.createCharge(merchant)
    await f.pay(created)
    await f.waitForStatus(merchant, created.id, 'confirming')
    await mine(f.chain, 2)
    await f.waitForStatus(merchant, created.id, 'settled')
    const second = await f.pay(created, { payer: 1 })
    const payments = await paymentsOf(created.id, 2)
    assert.deepEqual(payments.map((p) => p.outcome), ['matched', 'second'])
    assert.equal(payments[1]!.txHash, second)
    await waitFor('the late payment webhook', async () => (await f.webhookTypes(created.id)).length === 3)
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.settled', 'charge.late_payment'])
    assert.equal((await charge(`/api/v1/charges/${created.id}`)).settlement!.txHash, payments[0]!.txHash)
  })
})

describe('a reorg', () => {
  test('taking the settlement of a confirming charge back reverts it to awaiting payment; a new payment settles it', async () => {
    const created = await f.createCharge(merchant)
    const snapshot = await f.rpc<string>('evm_snapshot')
    const doomed = await f.pay(created)
    await f.waitForStatus(merchant, created.id, 'confirming')

    assert.equal(await f.rpc<boolean>('evm_revert', [snapshot]), true)
    const reverted = await mineUntil(f.chain, 'the charge back to awaiting payment', async () => {
      const now = await charge(`/api/v1/charges/${created.id}`)
      return now.status === 'awaiting-payment' && now
    })
    assert.equal(reverted.settlement, null)
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.reverted'])
    const [removed] = await paymentsOf(created.id, 1)
    assert.equal(removed!.txHash, doomed)
    assert.equal(removed!.removed, true)

    await f.resetRelayer()
    const replacement = await f.pay(created)
    const confirming = await f.waitForStatus(merchant, created.id, 'confirming')
    assert.equal(confirming.settlement!.txHash, replacement)
    await mine(f.chain, 2)
    await f.waitForStatus(merchant, created.id, 'settled')
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.reverted', 'charge.confirming', 'charge.settled'])
    assert.deepEqual((await paymentsOf(created.id, 2)).map((p) => [p.txHash, p.outcome, p.removed]), [[doomed, 'matched', true], [replacement, 'matched', false]])
  })
})
