/**
 * Issue 43 item 1: every page the product serves, at 320 and 390 px, in a real Chromium over the whole
 * processor (src/devnet/testing/purchase-world.ts): the store's home and order pages (unpaid, paid, unknown), the payment
 * page (awaiting, paid, unknown), the refund page (awaiting with its QR code and the merchant's address,
 * refunded), a payment link's page, and the explorer's views (feed, settlement, order, address, filters,
 * a rejected filter). None may scroll sideways (documentElement.scrollWidth <= innerWidth) nor have an
 * element stick out of the window or out of its own box, and the details' amounts stay on one line and
 * addresses on at most two. Screenshots of each land in `.data/screenshots/phone-*.png`.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { RefundJson } from '../../src/processor/charges/index.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { phoneFit, screenshot, asDemoMerchant, placeOrder as placeOrderIn, startPurchaseWorld, type PurchaseWorld } from '../../src/devnet/testing/index.js'

let world: PurchaseWorld
const placeOrder = (product: string) => placeOrderIn(world, product)
const asMerchant = (method: string, path: string, body?: unknown) => asDemoMerchant(world, method, path, body)

before(async () => {
  world = await startPurchaseWorld()
})

after(async () => {
  await world?.stop()
})



/** A page to check: its address, a selector that shows it has drawn what it shows, and a name for its screenshot. */
interface Served {
  name: string
  url: string
  ready: string
  /** A further condition, as page JavaScript, for pages that draw in steps. */
  until?: string
}

async function checkAtPhoneWidths(pages: Served[]): Promise<void> {
  const problems: string[] = []
  for (const width of [320, 390]) {
    const page = await world.browser.newPage()
    await page.setViewport({ width, height: 800, deviceScaleFactor: 1, isMobile: true, hasTouch: true })
    for (const served of pages) {
      await page.goto('about:blank')
      await page.goto(served.url)
      await page.waitForSelector(served.ready, { timeout: 20_000 }).catch((error: Error) => assert.fail(`${served.name} at ${width} px never showed ${served.ready}: ${error.message}`))
      if (served.until) await page.waitForFunction(served.until, { timeout: 20_000 })
      const fit = await phoneFit(page)
      await screenshot(page, `phone-${served.name}-${width}px`)
      if (fit.scrollWidth > fit.innerWidth) problems.push(`${served.name} at ${width} px: ${fit.scrollWidth} px wide`)
      for (const out of fit.stickingOut.slice(0, 4)) problems.push(`${served.name} at ${width} px: ${out}`)
      for (const wrap of fit.badWraps) problems.push(`${served.name} at ${width} px: ${wrap}`)
    }
    await page.close()
  }
  assert.deepEqual(problems, [])
}

describe('every served page at 320 and 390 px', () => {
  it('the store, the payment page, the refund page and a payment link fit, before and after payment', async () => {
    const unpaid = await placeOrder('coffee')
    const paid = await placeOrder('mug')
    const paying = await world.browser.newPage()
    await paying.goto(`${world.store.url}/orders/${paid.orderId}`)
    await Promise.all([paying.waitForNavigation(), paying.click('#demo-wallet')])
    await paying.waitForFunction(() => document.querySelector('#order-status')?.getAttribute('data-status') === 'paid', { timeout: 60_000 })
    await paying.close()
    const created = await asMerchant('POST', `/api/v1/charges/${paid.chargeId}/refunds`, { amount: '1000000', reason: 'one bag was open' })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const refund = created.body as RefundJson
    const linkPage = await fetch(`${world.store.url}/products/mug/buy-again`, { redirect: 'manual' })
    assert.equal(linkPage.status, 303)

    await checkAtPhoneWidths([
      { name: 'store-home', url: world.store.url, ready: '.price' },
      { name: 'store-order-unpaid', url: `${world.store.url}/orders/${unpaid.orderId}`, ready: '#order-status' },
      { name: 'store-order-paid', url: `${world.store.url}/orders/${paid.orderId}`, ready: '#settlement a' },
      { name: 'store-order-unknown', url: `${world.store.url}/orders/ord_nope`, ready: 'main' },
      { name: 'payment-unpaid', url: unpaid.widgetUrl, ready: '.qr img' },
      { name: 'payment-paid', url: paid.widgetUrl, ready: '#status[data-status="settled"]' },
      { name: 'payment-unknown', url: `${world.widget.publicUrl}/s/ch_${'0'.repeat(24)}`, ready: 'main' },
      { name: 'refund-awaiting', url: refund.widgetUrl, ready: '.qr img' },
      { name: 'payment-link', url: linkPage.headers.get('location')!, ready: '#amount' },
    ])
  })

  it('the explorer’s views fit: feed, settlement, order, address, filters and a rejected filter', async () => {
    const target = (await world.explorer.get('/events?limit=1')).body.events[0] as Settlement | undefined
    assert.ok(target, 'a settlement to show (the first test paid one)')
    const explorer = world.explorer.url
    await checkAtPhoneWidths([
      { name: 'explorer-feed', url: `${explorer}/`, ready: '#view tbody tr' },
      { name: 'explorer-settlement', url: `${explorer}/#/tx/${target.txHash}`, ready: '#view[data-view="tx"] dl.fields' },
      { name: 'explorer-order', url: `${explorer}/#/order/${target.orderReference}`, ready: '#view dl.fields' },
      { name: 'explorer-address', url: `${explorer}/#/address/${target.recipient}`, ready: '#view tbody tr' },
      { name: 'explorer-filters', url: `${explorer}/#/events?token=${target.token}&payer=${target.payer}`, ready: '#view tbody tr' },
      { name: 'explorer-rejected-filter', url: `${explorer}/#/events?payer=0xnope`, ready: '.totals', until: `!/^Loading/.test(document.querySelector('.totals').textContent)` },
    ])
  })
})
