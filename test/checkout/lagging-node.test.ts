/**
 * Issue 38 item 1, a paid charge never expires on one answer: the engine's own node sits behind a relay
 * the test controls, and the explorer's feed behind another that can speak for a compromised explorer
 * (CONFIRMATION_BLOCKS 2):
 * - a node that hides the receipt, lags behind the settlement's block or errs changes nothing, and the
 *   charge settles once the node answers (before: reverted, then expired, with the payment on chain);
 * - a REMOVED from the feed of a settlement the chain still holds reverts nothing;
 * - a settlement the node shows gone for blocks on end reverts the charge, which does not expire while
 *   the settlement is watched, and is paid again when the settlement is seen again;
 * - a settlement re-mined at another position that the head poll finds before the explorer reports it is
 *   recorded there once: the explorer's report of that position later is no second payment.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, afterEach, before, test } from 'node:test'
import type { Hex } from 'viem'
import type { ChargeJson, PaymentJson } from '../../src/processor/charges/index.js'
import { waitFor, mine, minePast, mineUntil, nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'
import type { RpcRequest } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '2' }, { engineRpcProxy: true, explorerRelay: true, explorerRpcProxy: true })
  merchant = await f.createMerchant()
})
after(() => f?.stop())
afterEach(() => {
  Object.assign(f.engineRpc!, { hide: undefined, refuse: undefined, rewrite: undefined })
  f.explorerRpc!.down = false
})

const get = async (path: string) => (await f.request(merchant.credentials, 'GET', path)).body
const statusOf = async (id: string) => (await get(`/api/v1/charges/${id}`)).status as string
const paymentsOf = async (id: string) => ((await get(`/api/v1/charges/${id}/payments`)).payments as PaymentJson[]).map((p) => [p.txHash, p.removed])
const receiptOf = (txHash: Hex) => (r: RpcRequest) => r.method === 'eth_getTransactionReceipt' && String(r.params?.[0]).toLowerCase() === txHash

/** `blocks` blocks, one every 150 ms: the reconciler polls between them (every 50 ms here). */
async function mineSlowly(blocks: number): Promise<void> {
  for (let i = 0; i < blocks; i++) {
    await mine(f.chain, 1)
    await sleep(150)
  }
}

async function paidCharge(charge?: ChargeJson): Promise<{ created: ChargeJson; txHash: Hex; height: number; logIndex: number }> {
  const created = charge ?? (await f.createCharge(merchant))
  const txHash = await f.pay(created)
  const confirming = await f.waitForStatus(merchant, created.id, 'confirming')
  return { created, txHash, height: confirming.settlement!.blockNumber, logIndex: confirming.settlement!.logIndex }
}

test('a node that hides the receipt, lags behind the block or errs changes nothing; the charge settles once it answers', async () => {
  const { created, txHash, height } = await paidCharge()
  const proxy = f.engineRpc!
  proxy.hide = receiptOf(txHash)
  await mineSlowly(6)
  proxy.hide = (r) => receiptOf(txHash)(r) || (r.method === 'eth_getBlockByNumber' && Number(r.params?.[0]) >= height)
  await mineSlowly(6)
  proxy.hide = undefined
  proxy.refuse = receiptOf(txHash)
  await mineSlowly(6)
  assert.equal(await statusOf(created.id), 'confirming')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming'])
  assert.ok(proxy.refused > 0, 'the node was asked for the receipt while it erred')

  proxy.refuse = undefined
  await f.waitForStatus(merchant, created.id, 'settled')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.settled'])
  assert.deepEqual(await paymentsOf(created.id), [[txHash, false]])
})

test("a REMOVED from a compromised explorer's feed of a settlement the chain holds reverts nothing", async () => {
  const { created, txHash } = await paidCharge()
  const sent = f.explorerRelay!.frames.find((frame) => frame.type === 'SETTLEMENT' && (frame.data as { txHash: string }).txHash === txHash)!
  assert.equal(f.explorerRelay!.inject({ ...sent, type: 'REMOVED' }), 1)
  await waitFor('the engine to set the report aside', () => f.logs.some((line) => line.includes('the explorer reported a removal the chain does not show') && line.includes(txHash)))

  await mineUntil(f.chain, 'the charge settled', async () => (await statusOf(created.id)) === 'settled')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.settled'])
  assert.deepEqual(await paymentsOf(created.id), [[txHash, false]])
})

test('a settlement the node shows gone for blocks on end reverts the charge; it does not expire meanwhile and is paid again when the settlement is back', async () => {
  const shortLived = await f.startCheckout({ CHARGE_TTL_SECONDS: '15' })
  const token = f.chain.deployment.tokens[0]!
  const body = { amount: '3000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId() }
  const charge = (await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, shortLived)).body as ChargeJson
  const { created, txHash, height } = await paidCharge(charge)
  const proxy = f.engineRpc!
  // A node on another branch: no receipt, and the block at the settlement's height without its transaction.
  proxy.hide = receiptOf(txHash)
  proxy.rewrite = (r, result) =>
    r.method === 'eth_getBlockByNumber' && Number(r.params?.[0]) === height && result
      ? { ...(result as object), transactions: (result as { transactions: string[] }).transactions.filter((hash) => hash !== txHash) }
      : result
  await mineUntil(f.chain, 'the charge reverted', async () => (await statusOf(created.id)) === 'awaiting-payment')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.reverted'])
  assert.deepEqual(await paymentsOf(created.id), [[txHash, true]])

  // Past the deadline on both clocks, and the feed past it: a charge with a settlement still watched does not expire.
  await minePast(f.chain, created.deadline)
  await sleep(1_000)
  assert.equal(await statusOf(created.id), 'awaiting-payment')

  proxy.hide = undefined
  proxy.rewrite = undefined
  await mineUntil(f.chain, 'the charge settled again', async () => (await statusOf(created.id)) === 'settled')
  assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.reverted', 'charge.confirming', 'charge.settled'])
  assert.deepEqual(await paymentsOf(created.id), [[txHash, true], [txHash, false]])
  await shortLived.stop()
})

test('a settlement re-mined elsewhere, found by the head poll before the explorer reports it, is recorded there once: no late payment', async () => {
  const first = await paidCharge()
  const second = await paidCharge()
  // The explorer is cut off; both blocks are replaced by a branch carrying both transactions in its second
  // block: the second settlement stays in its block at another log index, the first moves a block on.
  f.explorerRpc!.down = true
  const raw = (hash: Hex) => f.rpc<Hex>('eth_getRawTransactionByHash', [hash])
  await f.rpc('anvil_reorg', [2, [[await raw(first.txHash), 1], [await raw(second.txHash), 1]]])
  await mineUntil(f.chain, 'both settled at their new positions', async () => (await statusOf(first.created.id)) === 'settled' && (await statusOf(second.created.id)) === 'settled')
  const moved = await get(`/api/v1/charges/${second.created.id}`)
  assert.notEqual(moved.settlement.logIndex, second.logIndex)

  f.explorerRpc!.down = false
  await waitFor('the explorer to report the new positions', async () => (await f.explorer.get(`/events/${second.txHash}`)).body?.logIndex === moved.settlement.logIndex)
  await mine(f.chain, 3)
  await sleep(1_000)
  for (const { created, txHash } of [first, second]) {
    assert.deepEqual(await f.webhookTypes(created.id), ['charge.confirming', 'charge.settled'])
    assert.deepEqual(await paymentsOf(created.id), [[txHash, true], [txHash, false]])
  }
})
