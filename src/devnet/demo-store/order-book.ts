/**
 * The store's orders, in memory (PROCESSOR.md §6: a demo keeps no state across restarts): each order is
 * one charge, moved by the verified webhooks it receives, and watched by its open order pages.
 */
import { createWatchers } from '../../platform/html/index.js'
import type { Product } from './catalog.js'
import type { CreateChargeRequest } from '../../processor/merchant-client/index.js'

export type OrderStatus = 'awaiting-payment' | 'confirming' | 'paid' | 'refunding' | 'partly-refunded' | 'refunded' | 'expired' | 'canceled'

export interface ReceivedWebhook {
  /** `webhook-id`: the same on every retry of one event. */
  id: string
  type: string
  receivedAt: Date
}

export interface DemoWalletPayment {
  state: 'paying' | 'mined' | 'failed'
  /** The latest submission status, the failure, or the transaction. */
  detail: string
}

export interface Order {
  /** Also the charge's `orderId`. */
  id: string
  product: Product
  /** In token units. */
  amount: string
  status: OrderStatus
  chargeId: string
  widgetUrl: string
  /** Replayed with the same Idempotency-Key for a fresh payment link. */
  chargeRequest: CreateChargeRequest
  idempotencyKey: string
  createdAt: Date
  /** How long the merchant API took to create the charge. */
  chargeCreationMs: number
  /** Verified webhooks, oldest first. */
  webhooks: ReceivedWebhook[]
  paidAt?: Date
  settlementTx?: string
  demoWallet?: DemoWalletPayment
  /** The merchant's wallet paying the order's refund (the Refund button). */
  refund?: DemoWalletPayment
  /** The latest refund's settlement. */
  refundTx?: string
  /** Settled refunds by refund id, in token units: what the order's status counts. */
  settledRefunds: Map<string, bigint>
}

export interface OrderBook {
  add(order: Order): void
  get(id: string): Order | undefined
  /** Newest first. */
  list(): Order[]
  /** Changes the order and tells its watchers. */
  update(id: string, change: (order: Order) => void): void
  /** Calls `onChange` after every change of the order; returns the remover. */
  watch(id: string, onChange: () => void): () => void
}

/** Orders kept: a long-running demo forgets the oldest. */
const MAX_ORDERS = 1_000

export function createOrderBook(): OrderBook {
  const orders = new Map<string, Order>()
  const watchers = createWatchers()
  return {
    add(order) {
      orders.set(order.id, order)
      if (orders.size > MAX_ORDERS) orders.delete(orders.keys().next().value!)
    },
    get: (id) => orders.get(id),
    list: () => [...orders.values()].reverse(),
    update(id, change) {
      const order = orders.get(id)
      if (!order) return
      change(order)
      watchers.notify(id)
    },
    watch: watchers.watch,
  }
}
