/**
 * The store's "Refund" button (issue 23; chain 31337 only): the store asks the merchant API for a refund
 * of the whole order (an Idempotency-Key per order, so a second press replays the same refund with a
 * fresh payment link), and the demo merchant's wallet — devnet recipient 0, a local test key the demo
 * wallet refuses off the devnet — pays the refund's payment link through the gateway, exactly as the demo
 * wallet pays a charge. The order turns "Refunded" only when the verified `refund.settled` webhook says
 * so. One refund at a time: the gateway keeps one connection per address.
 */
import { demoMerchantAccount, payAsDemoPayer } from '../demo-wallet/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { MerchantClient } from '../../processor/merchant-client/index.js'
import type { OrderBook } from './order-book.js'
import { BaseError } from '../../errors/index.js'

/** Devnet recipient 0: the store's beneficiary on the devnet (config/demo-store-options.ts). */
const STORE_MERCHANT_WALLET = 0

export function demoRefunds(params: { api: MerchantClient; book: OrderBook; rpcUrl: string; dataServiceUrl: string; log: Logger }): (orderId: string) => void {
  const { api, book, log } = params
  let queue = Promise.resolve()
  const setState = (orderId: string, state: 'paying' | 'mined' | 'failed', detail: string) => book.update(orderId, (o) => (o.refund = { state, detail }))

  const refund = async (orderId: string) => {
    const order = book.get(orderId)!
    const created = await api.createRefund(order.chargeId, { amount: order.amount, reason: 'refunded from the demo store' }, { idempotencyKey: `demo-store-refund-${orderId}` })
    if (!created.ephemeralToken) throw new BaseError(`the refund is ${created.status}`)
    const { final } = await payAsDemoPayer(`${created.widgetUrl}?t=${created.ephemeralToken}`, {
      index: STORE_MERCHANT_WALLET,
      account: demoMerchantAccount(STORE_MERCHANT_WALLET),
      rpcUrl: params.rpcUrl,
      dataServiceUrl: params.dataServiceUrl,
      onStatus: (push) => setState(orderId, 'paying', push.status),
    })
    if (final.status === 'SUCCESS') setState(orderId, 'mined', final.txHash!)
    else setState(orderId, 'failed', `${final.failureCategory ?? 'FAILURE'}: ${final.failureReason ?? ''}`)
  }

  return (orderId) => {
    const order = book.get(orderId)
    if (!order || order.status !== 'paid' || order.refund?.state === 'paying') return
    setState(orderId, 'paying', 'asking the merchant API for a refund')
    queue = queue.then(() =>
      refund(orderId).catch((error: Error) => {
        log.warn('demo refund failed', { orderId, error })
        setState(orderId, 'failed', error.message.split('\n')[0]!)
      }),
    )
  }
}
