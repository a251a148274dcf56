/**
 * The store's webhook receiver (PROCESSOR.md §4, §6): a request counts only when one of the demo
 * merchant's secrets verifies its Standard Webhooks signature (and its timestamp is recent); then the
 * event moves its order — `charge.settled` makes it paid. Each event is applied once (deduplicated on
 * `webhook-id`, since delivery is at least once) and answered 2xx only after it is applied.
 */
import type { ChargeJson, RefundJson } from '../../processor/charges/index.js'
import { verifyWebhook, type WebhookRequestHeaders } from '../../processor/webhooks/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { Order, OrderBook, OrderStatus } from './order-book.js'

export interface WebhookAnswer {
  status: number
  detail: string
}

interface ChargeEvent {
  type: string
  data: ChargeJson | RefundJson
}

const statusAfter: Record<string, OrderStatus | undefined> = {
  'charge.confirming': 'confirming',
  'charge.settled': 'paid',
  'charge.expired': 'expired',
  'charge.canceled': 'canceled',
  'charge.reverted': 'awaiting-payment',
  'refund.confirming': 'refunding',
}

/**
 * After a refund's event (data: the refund; its orderId is the charge's): the order's settled refunds
 * decide, refunded once they add up to the order's amount, partly refunded before (a reorg's
 * `refund.reverted` takes one out again).
 */
function afterRefund(order: Order, event: ChargeEvent): OrderStatus {
  const refund = event.data as RefundJson
  if (event.type === 'refund.settled') order.settledRefunds.set(refund.id, BigInt(refund.amount))
  if (event.type === 'refund.reverted') order.settledRefunds.delete(refund.id)
  if (event.type === 'refund.confirming') return 'refunding'
  const refunded = [...order.settledRefunds.values()].reduce((sum, amount) => sum + amount, 0n)
  return refunded === 0n ? 'paid' : refunded >= BigInt(order.amount) ? 'refunded' : 'partly-refunded'
}

export function receiveWebhook(book: OrderBook, secrets: string[], headers: WebhookRequestHeaders & Record<string, string | string[] | undefined>, body: Buffer, log: Logger): WebhookAnswer {
  let event: ChargeEvent
  try {
    event = verifyWebhook(secrets, headers, body) as ChargeEvent
  } catch (error) {
    log.warn('webhook refused: its signature does not verify', { error })
    return { status: 401, detail: 'the signature does not verify' }
  }
  const id = String(headers['webhook-id'])
  const order = book.get(event.data?.orderId)
  if (!order) return { status: 200, detail: `no order ${event.data?.orderId}; ignored` }
  if (order.webhooks.some((received) => received.id === id)) return { status: 200, detail: 'already applied' }
  book.update(order.id, (o) => {
    o.webhooks.push({ id, type: event.type, receivedAt: new Date() })
    o.status = event.type.startsWith('refund.') ? afterRefund(o, event) : (statusAfter[event.type] ?? o.status)
    if (event.type.startsWith('refund.')) o.refundTx = event.type === 'refund.reverted' ? undefined : (event.data.settlement?.txHash ?? o.refundTx)
    else o.settlementTx = event.data.settlement?.txHash ?? o.settlementTx
    if (event.type === 'charge.settled') o.paidAt = new Date()
  })
  log.info('webhook applied', { type: event.type, orderId: order.id, status: order.status })
  return { status: 204, detail: '' }
}
