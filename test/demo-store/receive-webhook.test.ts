/**
 * The demo store's webhook receiver without a network: events signed as the checkout signs them
 * (`webhookHeaders`), one signature per live secret, applied to an order book — statuses, a settlement,
 * duplicates applied once, a rotation's overlap, forged and foreign events.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { webhookHeaders } from '../../src/processor/webhooks/sign-webhook.js'
import { deriveMerchantSecret } from '../../src/processor/webhooks/index.js'
import { catalog } from '../../src/devnet/demo-store/catalog.js'
import { createOrderBook, type Order, type OrderBook } from '../../src/devnet/demo-store/order-book.js'
import { receiveWebhook } from '../../src/devnet/demo-store/receive-webhook.js'
import { generateWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { createLogger } from '../../src/platform/observability/logger.js'

const log = createLogger('silent')
const merchantId = `m_${'a'.repeat(24)}`
const oldMaster = generateWebhookSecret()
const newMaster = generateWebhookSecret()
const txHash = `0x${'1'.repeat(64)}`
let counter = 0

function bookWithOrder(): { book: OrderBook; order: Order } {
  const book = createOrderBook()
  const order: Order = {
    id: `o_${String(++counter).padStart(10, '0')}`,
    product: catalog[0]!,
    amount: '12000000',
    status: 'awaiting-payment',
    chargeId: `ch_${'b'.repeat(24)}`,
    widgetUrl: 'http://127.0.0.1:4004/s/ch_x',
    chargeRequest: { amount: '12000000', token: '0x', beneficiary: '0x', currency: 'USDC', orderId: 'x' },
    idempotencyKey: 'k',
    createdAt: new Date(),
    chargeCreationMs: 1,
    webhooks: [],
    settledRefunds: new Map(),
  }
  book.add(order)
  return { book, order }
}

/** An event as the checkout sends it, signed with `masters` (one signature each). */
function event(type: string, orderId: string, masters = [newMaster], id = `msg_${type}`) {
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { orderId, status: type.slice(7), settlement: type === 'charge.settled' ? { txHash } : null } })
  const headers = webhookHeaders({ id, merchantId, body, secrets: masters })
  return { headers: headers as Record<string, string>, body: Buffer.from(body) }
}

const secretsOf = (...masters: string[]) => masters.map((master) => deriveMerchantSecret(master, merchantId))

test('confirming, then settled: the order is paid with its settlement, each event recorded once', () => {
  const { book, order } = bookWithOrder()
  const secrets = secretsOf(newMaster)
  const confirming = event('charge.confirming', order.id)
  assert.equal(receiveWebhook(book, secrets, confirming.headers, confirming.body, log).status, 204)
  assert.equal(order.status, 'confirming')
  const settled = event('charge.settled', order.id)
  assert.equal(receiveWebhook(book, secrets, settled.headers, settled.body, log).status, 204)
  assert.equal(receiveWebhook(book, secrets, settled.headers, settled.body, log).status, 200)
  assert.equal(order.status, 'paid')
  assert.equal(order.settlementTx, txHash)
  assert.ok(order.paidAt)
  assert.deepEqual(order.webhooks.map((w) => w.type), ['charge.confirming', 'charge.settled'])
})

test('refunds: partly refunded, then refunded once settled refunds reach the amount; a reverted refund counts no more', () => {
  const { book, order } = bookWithOrder()
  const secrets = secretsOf(newMaster)
  const refundEvent = (type: string, refundId: string, amount: string) => {
    const settlement = type === 'refund.settled' || type === 'refund.confirming' ? { txHash: `0x${refundId.slice(-1).repeat(64)}` } : null
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { id: refundId, orderId: order.id, amount, status: type.slice(7), settlement } })
    const headers = webhookHeaders({ id: `msg_${type}_${refundId}`, merchantId, body, secrets: [newMaster] }) as Record<string, string>
    assert.equal(receiveWebhook(book, secrets, headers, Buffer.from(body), log).status, 204, `${type} ${refundId}`)
    return order.status
  }
  order.status = 'paid'
  order.settlementTx = txHash
  assert.equal(refundEvent('refund.created', 're_1', '2000000'), 'paid')
  assert.equal(refundEvent('refund.confirming', 're_1', '2000000'), 'refunding')
  assert.equal(refundEvent('refund.settled', 're_1', '2000000'), 'partly-refunded')
  assert.equal(order.refundTx, `0x${'1'.repeat(64)}`)
  assert.equal(order.settlementTx, txHash, "a refund's settlement is not the order's")
  assert.equal(refundEvent('refund.expired', 're_2', '10000000'), 'partly-refunded')
  assert.equal(refundEvent('refund.settled', 're_3', '10000000'), 'refunded')
  assert.equal(refundEvent('refund.reverted', 're_3', '10000000'), 'partly-refunded')
  assert.equal(refundEvent('refund.reverted', 're_1', '2000000'), 'paid')
})

test('expired, canceled and reverted move the order; a late payment leaves it', () => {
  const secrets = secretsOf(newMaster)
  for (const [type, status] of [['charge.expired', 'expired'], ['charge.canceled', 'canceled'], ['charge.late_payment', 'awaiting-payment']] as const) {
    const { book, order } = bookWithOrder()
    const { headers, body } = event(type, order.id)
    assert.equal(receiveWebhook(book, secrets, headers, body, log).status, 204)
    assert.equal(order.status, status, type)
  }
  const { book, order } = bookWithOrder()
  for (const type of ['charge.confirming', 'charge.reverted']) {
    const { headers, body } = event(type, order.id)
    receiveWebhook(book, secrets, headers, body, log)
  }
  assert.equal(order.status, 'awaiting-payment')
})

test("during a rotation's overlap the store verifies with either secret; a signature by another merchant's secret or a tampered body is refused", () => {
  const { book, order } = bookWithOrder()
  const overlap = event('charge.confirming', order.id, [newMaster, oldMaster])
  assert.equal(receiveWebhook(book, secretsOf(oldMaster), overlap.headers, overlap.body, log).status, 204)
  const { book: other, order: another } = bookWithOrder()
  assert.equal(receiveWebhook(other, secretsOf(newMaster), overlap.headers, overlap.body, log).status, 200, 'another order id is ignored, not refused')
  assert.equal(another.webhooks.length, 0)

  const foreign = deriveMerchantSecret(newMaster, `m_${'c'.repeat(24)}`)
  const settled = event('charge.settled', order.id)
  assert.equal(receiveWebhook(book, [foreign], settled.headers, settled.body, log).status, 401)
  const tampered = Buffer.from(settled.body.toString().replace('settled', 'canceled'))
  assert.equal(receiveWebhook(book, secretsOf(newMaster), settled.headers, tampered, log).status, 401)
  assert.equal(order.status, 'confirming')
})
