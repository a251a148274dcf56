/**
 * The demo store's pages: the products with a "Pay with stablecoin" button each and the orders so far;
 * an order with its live status (kept current by the inline script from the order's event stream), the
 * verified webhooks it received, its settlement in the explorer and, until it is paid, a link back to its
 * payment page and, on the devnet, the demo wallet. Prices show the processor's base fee the payer adds.
 */
import { escapeHtml } from '../../platform/html/index.js'
import type { HtmlPage } from '../../platform/html/index.js'
import { displayAmount, shortHex, type Hex } from '../../wire/index.js'
import { catalog } from './catalog.js'
import type { Order, OrderStatus } from './order-book.js'

/** How the store shows money and settlements: its token, the base fee a payer adds, the explorer. */
export interface StoreDisplay {
  symbol: string
  decimals: number
  /** The processor's base fee, in the token's smallest units. */
  baseFee: bigint
  explorerUrl: string
}

/** What the order page shows that changes: sent whole on every change, rendered here only. */
export interface OrderView {
  status: OrderStatus
  label: string
  /** The settlement's transaction, shortened and linked to the explorer, HTML. */
  settlementHtml: string
  walletText: string
  /** The Refund button's progress, and the refund's settlement (HTML) once seen. */
  refundText: string
  refundHtml: string
  /** The list items of the verified webhooks, HTML. */
  webhooksHtml: string
}

const labels: Record<OrderStatus, string> = {
  'awaiting-payment': 'Awaiting payment',
  confirming: 'Payment received, confirming',
  paid: 'Paid',
  refunding: 'Refund sent, confirming',
  'partly-refunded': 'Partly refunded',
  refunded: 'Refunded',
  expired: 'Expired',
  canceled: 'Canceled',
}

export const orderView = (order: Order, display: StoreDisplay): OrderView => ({
  status: order.status,
  label: labels[order.status],
  settlementHtml: order.settlementTx ? settlementLink(order.settlementTx as Hex, display.explorerUrl) : 'none yet',
  walletText: walletText(order.demoWallet),
  refundText: refundText(order.refund),
  refundHtml: order.refundTx ? settlementLink(order.refundTx as Hex, display.explorerUrl) : 'none',
  webhooksHtml: order.webhooks.map((w) => `<li>${escapeHtml(w.type)} at ${w.receivedAt.toISOString()}</li>`).join('') || '<li>none yet</li>',
})

const style = `
.products { list-style: none; padding: 0; margin: 0 }
.products h2 { margin-top: 0 }
.price { font-size: 1.25rem; font-weight: 700 }
.orders { padding-left: 1.25rem }
.fee { font-size: 1rem; font-weight: 400 }
`

/** The settlement shortened for a phone, the whole hash in the link's title and label. */
function settlementLink(txHash: Hex, explorerUrl: string): string {
  const href = `${explorerUrl}/#/tx/${txHash}`
  return `<a class="mono" href="${escapeHtml(href)}" title="${escapeHtml(txHash)}" aria-label="settlement ${escapeHtml(txHash)} in the explorer">${escapeHtml(shortHex(txHash, 10, 8))}</a>`
}

/** "12.00 USDC + 2.50 fee": what the merchant asks and what the payer adds on the payment page. */
const priceHtml = (price: string, display: StoreDisplay) =>
  `${escapeHtml(price)} ${escapeHtml(display.symbol)} <span class="fee muted">+ ${escapeHtml(displayAmount(display.baseFee, display.decimals))} fee</span>`

export function homePage(orders: Order[], display: StoreDisplay, widgetOrigin: string): HtmlPage {
  const products = catalog
    .map(
      (product) => `<li class="card">
<h2>${escapeHtml(product.name)}</h2>
<p class="muted">${escapeHtml(product.description)}</p>
<p class="price">${priceHtml(product.price, display)}</p>
<form method="post" action="/orders"><input type="hidden" name="product" value="${escapeHtml(product.id)}"><button type="submit" aria-label="Pay for ${escapeHtml(product.name)} with stablecoin">Pay with stablecoin</button></form>
</li>`,
    )
    .join('\n')
  const list = orders.length
    ? `<ul class="orders">${orders.map((o) => `<li><a href="/orders/${o.id}">${escapeHtml(o.product.name)}, order ${o.id}</a>: ${escapeHtml(labels[o.status])}</li>`).join('')}</ul>`
    : '<p class="muted">None yet.</p>'
  return {
    title: 'Demo Store',
    style,
    formOrigins: [widgetOrigin],
    body: `<main>
<h1>Demo Store</h1>
<p class="muted">Everything here is paid in ${escapeHtml(display.symbol)} through the processor's checkout: "Pay with stablecoin" takes you to its payment page, where the payer adds the processor's fee.</p>
<ul class="products">
${products}
</ul>
<h2>Your orders</h2>
${list}
<p><a id="report" href="/report.csv" download>Download the merchant's charges report (CSV)</a></p>
</main>`,
  }
}

export function orderPage(order: Order, display: StoreDisplay, demoWallet: boolean): HtmlPage {
  const view = orderView(order, display)
  const wallet = demoWallet
    ? `<section class="card pay-action" aria-labelledby="wallet-heading">
<h2 id="wallet-heading">Demo wallet (local chain)</h2>
<p>Pays this order's payment page as a local test payer, through the wallet gateway.</p>
<form method="post" action="/orders/${order.id}/demo-wallet"><button type="submit" id="demo-wallet">Pay with the demo wallet</button></form>
<p id="demo-wallet-state" role="status" aria-live="polite">${escapeHtml(view.walletText)}</p>
</section>`
    : ''
  // The refund is paid from the merchant's wallet with a local test key: the devnet only, as the demo wallet.
  const refund = demoWallet
    ? `<section class="card refund-action" aria-labelledby="refund-heading">
<h2 id="refund-heading">Refund (local chain)</h2>
<p>Refunds the whole order: the merchant API makes a refund request and the merchant's wallet pays it back to the payer through the wallet gateway, paying the base fee.</p>
<form method="post" action="/orders/${order.id}/refund"><button type="submit" id="refund">Refund</button></form>
<p id="refund-state" role="status" aria-live="polite">${escapeHtml(view.refundText)}</p>
</section>`
    : ''
  return {
    title: `Order ${order.id}, Demo Store`,
    style: `${style}
main:not([data-status="awaiting-payment"]) .pay-action { display: none }
main:not([data-status="paid"]) .buy-again { display: none }
main:not([data-status="paid"]):not([data-status="refunding"]) .refund-action { display: none }`,
    body: `<main id="order" data-order="${order.id}" data-status="${view.status}">
<p><a href="/">Demo Store</a></p>
<h1>Order ${order.id}</h1>
<p>${escapeHtml(order.product.name)}: <strong>${priceHtml(order.product.price, display)}</strong></p>
<p><span id="order-status" class="status" role="status" aria-live="polite" data-status="${view.status}">${escapeHtml(view.label)}</span></p>
<p class="pay-action"><a id="payment-page" href="${escapeHtml(order.widgetUrl)}">Open the payment page</a> (QR code and payment link)</p>
${wallet}
${refund}
<p class="buy-again"><a id="buy-again" href="/products/${escapeHtml(order.product.id)}/buy-again">Buy again</a> (a reusable payment link for this product)</p>
<section class="card" aria-labelledby="webhooks-heading">
<h2 id="webhooks-heading">Verified webhooks</h2>
<ul id="webhooks">${view.webhooksHtml}</ul>
<p>Settlement: <span id="settlement">${view.settlementHtml}</span></p>
<p>Refund settlement: <span id="refund-settlement">${view.refundHtml}</span></p>
</section>
</main>`,
    script: orderScript,
  }
}

export function storeMessagePage(title: string, message: string): HtmlPage {
  return { title, body: `<main><p><a href="/">Demo Store</a></p><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main>` }
}

function refundText(refund: Order['refund']): string {
  if (!refund) return ''
  return refund.state === 'paying' ? `Refunding: ${refund.detail}` : refund.state === 'mined' ? 'Refund paid from the merchant’s wallet' : `Failed: ${refund.detail}`
}

function walletText(payment: Order['demoWallet']): string {
  if (!payment) return ''
  // Mined: the settlement line below links the transaction; the hash is not repeated here.
  return payment.state === 'paying' ? `Paying: ${payment.detail}` : payment.state === 'mined' ? 'Paid with the demo wallet' : `Failed: ${payment.detail}`
}

/** Live order status from `/orders/<id>/events`, each change rendered by the server (`OrderView`). */
const orderScript = `
(function () {
  var root = document.getElementById('order');
  var status = document.getElementById('order-status');
  var wallet = document.getElementById('demo-wallet-state');
  var events = new EventSource('/orders/' + root.getAttribute('data-order') + '/events');
  events.addEventListener('order', function (event) {
    var order = JSON.parse(event.data);
    root.setAttribute('data-status', order.status);
    status.setAttribute('data-status', order.status);
    status.textContent = order.label;
    document.getElementById('settlement').innerHTML = order.settlementHtml;
    document.getElementById('webhooks').innerHTML = order.webhooksHtml;
    if (wallet) wallet.textContent = order.walletText;
    var refund = document.getElementById('refund-state');
    if (refund) refund.textContent = order.refundText;
    document.getElementById('refund-settlement').innerHTML = order.refundHtml;
  });
})();
`
