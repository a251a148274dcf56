/**
 * Issue 21 items 7 and 8, merchants told the truth when the explorer's feed is behind or wrong, with a
 * real explorer reading anvil through a relay the test controls (CONFIRMATION_BLOCKS 0):
 * - a payment mined before its charge's deadline while the explorer cannot see the chain settles the
 *   charge once the explorer catches up; it is never expired and reported late. An unpaid charge expires
 *   only once the feed has passed its deadline on the chain's clock;
 * - the explorer reporting an underpaid payment as paid in full (its node lies about the log) does not
 *   settle the charge: the engine reads the payment back from its own node and records what the chain says.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, afterEach, before, test } from 'node:test'
import type { ChargeJson, PaymentJson } from '../../src/processor/charges/index.js'
import type { RunningCheckout } from '../../src/processor/checkout/index.js'
import { waitFor, minePast, nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

const TTL_SECONDS = 5
let f: CheckoutFixture
let merchant: TestMerchant
let shortLived: RunningCheckout

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' }, { explorerRpcProxy: true })
  merchant = await f.createMerchant()
  // A standby replica whose charges live TTL_SECONDS; the fixture's engine reconciles them.
  shortLived = await f.startCheckout({ CHARGE_TTL_SECONDS: String(TTL_SECONDS) })
})
after(() => f?.stop())
afterEach(() => {
  f.explorerRpc!.down = false
  f.explorerRpc!.rewrite = undefined
})

async function shortCharge(): Promise<ChargeJson> {
  const token = f.chain.deployment.tokens[0]!
  const body = { amount: '4000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId() }
  const { status, body: created } = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, shortLived)
  assert.equal(status, 201)
  return created as ChargeJson
}

const statusOf = async (id: string) => (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${id}`)).body.status as string

function paymentsOf(id: string, count: number): Promise<PaymentJson[]> {
  return waitFor(`${count} payment(s) recorded on ${id}`, async () => {
    const { payments } = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${id}/payments`)).body as { payments: PaymentJson[] }
    return payments.length >= count ? payments : undefined
  })
}

test('a payment mined before the deadline while the explorer is behind settles the charge; nothing expires until the feed passes the deadline', async () => {
  const paid = await shortCharge()
  const unpaid = await shortCharge()
  f.explorerRpc!.down = true
  await f.pay(paid)
  // Past both deadlines on the wall clock and on the chain (a block stamped after them; anvil mines no
  // empty blocks by itself, and the second charge's deadline is later by however long creating it took).
  await minePast(f.chain, paid.deadline, unpaid.deadline)
  await sleep(1_500)
  assert.equal(await statusOf(paid.id), 'awaiting-payment')
  assert.equal(await statusOf(unpaid.id), 'awaiting-payment')
  assert.deepEqual(await f.webhookTypes(paid.id), [])

  f.explorerRpc!.down = false
  await f.waitForStatus(merchant, paid.id, 'settled')
  await f.waitForStatus(merchant, unpaid.id, 'expired')
  assert.deepEqual(await f.webhookTypes(paid.id), ['charge.confirming', 'charge.settled'])
  assert.deepEqual(await f.webhookTypes(unpaid.id), ['charge.expired'])
  const [payment] = await paymentsOf(paid.id, 1)
  assert.equal(payment!.outcome, 'matched')
  assert.equal(payment!.beforeDeadline, true)
})

test("the explorer's fields are not believed: an underpaid payment it reports as paid in full settles nothing", async () => {
  const created = await f.createCharge(merchant)
  const reference = created.orderReference.slice(2)
  const fullValue = BigInt(created.amount).toString(16).padStart(64, '0')
  // The explorer's node rewrites the log's value word (data: recipient, value, fee, reference) to the full amount.
  f.explorerRpc!.rewrite = (request, result) =>
    request.method === 'eth_getLogs' && Array.isArray(result)
      ? result.map((log: { data: string }) => (log.data.slice(2 + 192).startsWith(reference) ? { ...log, data: `0x${log.data.slice(2, 66)}${fullValue}${log.data.slice(130)}` } : log))
      : result
  const half = BigInt(created.amount) / 2n
  await f.pay(created, { principal: half })
  const reported = await waitFor('the explorer to report the payment', async () => (await f.explorer.get(`/events/order/${created.orderReference}`)).body?.amount)
  assert.equal(reported, created.amount)

  const [payment] = await paymentsOf(created.id, 1)
  assert.equal(payment!.outcome, 'mismatched')
  assert.deepEqual(payment!.mismatch, ['underpaid'])
  assert.equal(payment!.amount, half.toString())
  await sleep(500)
  assert.equal(await statusOf(created.id), 'awaiting-payment')
  assert.deepEqual(await f.webhookTypes(created.id), [])
})
