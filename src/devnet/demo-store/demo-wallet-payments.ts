/**
 * The store's "demo wallet" button (chain 31337 only): the store asks the merchant API for a fresh
 * payment link of the order's charge (the creation replayed with its Idempotency-Key, which issues a new
 * ephemeral token) and pays it as demo payer 0 through the gateway, exactly as a scanned QR code would be
 * paid. One payment at a time: the gateway keeps one connection per payer address.
 */
import { payAsDemoPayer } from '../demo-wallet/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { MerchantClient } from '../../processor/merchant-client/index.js'
import { demoRefunds } from './demo-refunds.js'
import type { OrderBook } from './order-book.js'
import { BaseError } from '../../errors/index.js'

export interface DemoWalletPayments {
  /** Starts paying the order unless it is paid or being paid; the order's `demoWallet` follows it. */
  start(orderId: string): void
  /** Starts refunding a paid order from the merchant's wallet (demo-refunds.ts); the order's `refund` follows it. */
  refund(orderId: string): void
}

const STORE_DEMO_PAYER = 0

export function demoWalletPayments(params: { api: MerchantClient; book: OrderBook; rpcUrl: string; dataServiceUrl: string; log: Logger }): DemoWalletPayments {
  const { api, book, log } = params
  let queue = Promise.resolve()
  const setState = (orderId: string, state: 'paying' | 'mined' | 'failed', detail: string) => book.update(orderId, (o) => (o.demoWallet = { state, detail }))

  const pay = async (orderId: string) => {
    const order = book.get(orderId)!
    const charge = await api.createCharge(order.chargeRequest, { idempotencyKey: order.idempotencyKey })
    if (!charge.ephemeralToken) throw new BaseError(`the charge is ${charge.status}`)
    const { final } = await payAsDemoPayer(`${charge.widgetUrl}?t=${charge.ephemeralToken}`, {
      index: STORE_DEMO_PAYER,
      rpcUrl: params.rpcUrl,
      dataServiceUrl: params.dataServiceUrl,
      onStatus: (push) => setState(orderId, 'paying', push.status),
    })
    if (final.status === 'SUCCESS') setState(orderId, 'mined', final.txHash!)
    else setState(orderId, 'failed', `${final.failureCategory ?? 'FAILURE'}: ${final.failureReason ?? ''}`)
  }

  return {
    refund: demoRefunds(params),
    start(orderId) {
      const order = book.get(orderId)
      if (!order || order.status !== 'awaiting-payment' || order.demoWallet?.state === 'paying') return
      setState(orderId, 'paying', 'getting a payment link')
      queue = queue.then(() =>
        pay(orderId).catch((error: Error) => {
          log.warn('demo wallet payment failed', { orderId, error })
          setState(orderId, 'failed', error.message.split('\n')[0]!)
        }),
      )
    },
  }
}
