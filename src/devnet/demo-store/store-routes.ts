/**
 * The demo store's routes: products, buying (a charge through the merchant API, then the browser is sent
 * to the payment page), an order's page and its live events, the demo wallet and Refund buttons (the forms refused
 * from another site: `same-origin.ts`), the webhook receiver and `/health` (`/ready` and `/metrics` are added by start-demo-store.ts).
 */
import { randomBytes } from 'node:crypto'
import { parseUnits } from 'viem'
import type { ListedToken } from '../demo-wallet/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { CreateChargeRequest, MerchantClient } from '../../processor/merchant-client/index.js'
import { openEventStream } from '../../platform/http/index.js'
import { redirect, sendJson, sendHtmlPage } from '../../platform/http/index.js'
import { ignoringBody } from '../../platform/route-server/index.js'
import type { RouteRequest, Route } from '../../platform/route-server/index.js'
import { findProduct } from './catalog.js'
import type { DemoWalletPayments } from './demo-wallet-payments.js'
import { readWebhookSecrets } from './merchant-files.js'
import type { OrderBook } from './order-book.js'
import { receiveWebhook } from './receive-webhook.js'
import { isCrossSite } from './same-origin.js'
import { homePage, orderPage, orderView, storeMessagePage, type StoreDisplay } from './store-pages.js'

export interface StoreContext {
  api: MerchantClient
  book: OrderBook
  /** The token the store prices in. */
  token: ListedToken
  /** Prices with the base fee, settlements linked to the explorer. */
  display: StoreDisplay
  beneficiary: string
  merchantDir: string
  /** The payment pages' origin: the buy form is redirected there. */
  widgetOrigin: string
  /** Absent off the devnet. */
  demoWallet?: DemoWalletPayments
  log: Logger
}

const ORDER = ':id(^o_[0-9a-f]{10}$)'
const MAX_FORM_BYTES = 4 * 1024
const MAX_WEBHOOK_BYTES = 256 * 1024

export function storeRoutes(context: StoreContext): Route[] {
  const { book, token } = context
  const withOrder = (handle: (request: RouteRequest, orderId: string) => Promise<void> | void) => (request: RouteRequest) => {
    const orderId = request.params[0]!
    if (!book.get(orderId)) return sendHtmlPage(request.res, 404, storeMessagePage('Order not found', `There is no order ${orderId} (orders are kept in memory until the store restarts).`))
    return handle(request, orderId)
  }
  const sameSiteForm = (handle: (request: RouteRequest) => Promise<void> | void) => (request: RouteRequest) => {
    if (isCrossSite(request.req)) return sendHtmlPage(request.res, 403, storeMessagePage('Refused', 'This form can only be sent from the Demo Store’s own pages.'))
    return handle(request)
  }
  return [
    { method: 'GET', url: '/', handle: ({ res }) => sendHtmlPage(res, 200, homePage(book.list().slice(0, 20), context.display, context.widgetOrigin)) },
    // An oversized form is read as an empty one: the page says to pick a product.
    { method: 'POST', url: '/orders', maxBodyBytes: MAX_FORM_BYTES, handle: sameSiteForm((request) => buy(context, request)), tooLarge: sameSiteForm((request) => buy(context, { ...request, body: undefined })) },
    { method: 'GET', url: `/orders/${ORDER}`, handle: withOrder(({ res }, id) => sendHtmlPage(res, 200, orderPage(book.get(id)!, context.display, Boolean(context.demoWallet)))) },
    {
      method: 'GET',
      url: `/orders/${ORDER}/events`,
      handle: withOrder(({ res }, id) => {
        const stream = openEventStream(res)
        const send = () => stream.send('order', orderView(book.get(id)!, context.display))
        stream.onClose(book.watch(id, send))
        send()
      }),
    },
    ignoringBody({
      method: 'POST',
      url: `/orders/${ORDER}/demo-wallet`,
      handle: sameSiteForm(withOrder(({ res }, id) => {
        if (!context.demoWallet) return sendHtmlPage(res, 404, storeMessagePage('No demo wallet', 'The demo wallet only exists on the local chain (31337).'))
        context.demoWallet.start(id)
        redirect(res, `/orders/${id}`)
      })),
    }),
    ignoringBody({
      method: 'POST',
      url: `/orders/${ORDER}/refund`,
      handle: sameSiteForm(withOrder(({ res }, id) => {
        if (!context.demoWallet) return sendHtmlPage(res, 404, storeMessagePage('No refunds here', 'The merchant’s wallet pays refunds with a local test key: only on the local chain (31337).'))
        context.demoWallet.refund(id)
        redirect(res, `/orders/${id}`)
      })),
    }),
    { method: 'POST', url: '/webhooks', maxBodyBytes: MAX_WEBHOOK_BYTES, handle: (request) => webhook(context, request) },
    { method: 'GET', url: '/health', handle: ({ res }) => sendJson(res, 200, { status: 'ok', orders: book.list().length }) },
  ]
}

export const storeNotFound = ({ res }: RouteRequest) => sendHtmlPage(res, 404, storeMessagePage('Not found', 'There is no such page in the Demo Store.'))

async function buy(context: StoreContext, { res, body }: RouteRequest): Promise<void> {
  const form = new URLSearchParams(body?.toString('utf8') ?? '')
  const product = findProduct(form.get('product') ?? '')
  if (!product) return sendHtmlPage(res, 400, storeMessagePage('Unknown product', 'Pick a product on the store page.'))
  const id = `o_${randomBytes(5).toString('hex')}`
  const chargeRequest: CreateChargeRequest = {
    amount: parseUnits(product.price, context.token.decimals).toString(),
    token: context.token.address,
    beneficiary: context.beneficiary,
    currency: context.token.symbol,
    orderId: id,
  }
  const idempotencyKey = `demo-store-${id}`
  const started = performance.now()
  let charge
  try {
    charge = await context.api.createCharge(chargeRequest, { idempotencyKey })
  } catch (error) {
    context.log.warn('charge creation failed', { orderId: id, error })
    return sendHtmlPage(res, 502, storeMessagePage('The checkout is not available', (error as Error).message.split('\n')[0]!))
  }
  context.book.add({
    id,
    product,
    amount: chargeRequest.amount,
    status: 'awaiting-payment',
    chargeId: charge.id,
    widgetUrl: charge.widgetUrl,
    chargeRequest,
    idempotencyKey,
    createdAt: new Date(),
    chargeCreationMs: performance.now() - started,
    webhooks: [],
    settledRefunds: new Map(),
  })
  context.log.info('order placed', { orderId: id, chargeId: charge.id })
  redirect(res, charge.widgetUrl)
}

async function webhook(context: StoreContext, { req, res, body }: RouteRequest): Promise<void> {
  const answer = receiveWebhook(context.book, await readWebhookSecrets(context.merchantDir), req.headers, body ?? Buffer.alloc(0), context.log)
  res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.detail)
}
