/**
 * Issue 23 item 4, the demo store's "Buy again" payment link and the merchant's report, in a real browser
 * over the whole processor (src/devnet/testing/purchase-world.ts): a paid order offers "Buy again", which opens the product's
 * payment link on the widget; its "Pay" button makes a charge of its own, paid with the wallet command
 * from the QR code; a second "Buy again" reuses the same link. The store's report link downloads the
 * merchant's charges report, with both charges in it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'puppeteer-core'
import { markPage, readQrCode, runWalletCommand, screenshot, startPurchaseWorld, type PurchaseWorld } from '../../src/devnet/testing/index.js'

let world: PurchaseWorld

before(async () => {
  world = await startPurchaseWorld()
})

after(async () => {
  await world?.stop()
})

const waitForStatus = (page: Page, selector: string, status: string) =>
  page.waitForFunction((s: string, wanted: string) => document.querySelector(s)?.getAttribute('data-status') === wanted, { timeout: 30_000 }, selector, status)

describe('buy again and the report', () => {
  it('a paid order offers "Buy again": the product’s payment link makes a charge of its own, paid from its QR code; the report lists both', async () => {
    const store = await world.browser.newPage()
    await store.setViewport({ width: 900, height: 1100 })
    await store.goto(world.store.url)
    await Promise.all([store.waitForNavigation(), store.click('button[aria-label="Pay for Ceramic mug with stablecoin"]')])
    const orderId = world.store.orders()[0]!.id
    const first = world.store.orders()[0]!.chargeId
    await store.goto(`${world.store.url}/orders/${orderId}`)
    assert.equal(await store.$eval('#buy-again', (a) => (a as HTMLElement).offsetParent === null), true, 'hidden until paid')
    await Promise.all([store.waitForNavigation(), store.click('#demo-wallet')])
    await markPage(store)
    await waitForStatus(store, '#order-status', 'paid')
    assert.equal(await store.$eval('#buy-again', (a) => (a as HTMLElement).offsetParent !== null), true, 'shown once paid, without a reload')

    await Promise.all([store.waitForNavigation(), store.click('#buy-again')])
    const linkUrl = store.url()
    assert.match(linkUrl, new RegExp(`^${world.widget.publicUrl}/l/pl_[0-9a-f]{24}$`))
    assert.equal(await store.$eval('#description', (e) => e.textContent), 'Ceramic mug')
    assert.match(await store.$eval('#amount', (e) => e.textContent!), /^18\.50 USDC$/)
    await screenshot(store, 'buy-again-1-link')
    await Promise.all([store.waitForNavigation(), store.click('#pay')])
    const second = /\/s\/(ch_[0-9a-f]{24})$/.exec(store.url())?.[1]
    assert.ok(second, store.url())
    assert.notEqual(second, first)
    const link = await readQrCode(world.browser, await screenshot(store, 'buy-again-2-widget'))
    assert.ok(link, 'a QR code is in the screenshot')
    const wallet = await runWalletCommand(link, { DATA_SERVICE_URL: world.dataService.url, RPC_URL: world.chain.rpcUrl })
    assert.equal(wallet.code, 0, wallet.output)
    await waitForStatus(store, '#status', 'settled')

    // Buy again from the same order: the same link, reused.
    await store.goto(`${world.store.url}/orders/${orderId}`)
    await Promise.all([store.waitForNavigation(), store.click('#buy-again')])
    assert.equal(store.url(), linkUrl)

    await store.goto(world.store.url)
    const href = await store.$eval('#report', (a) => (a as HTMLAnchorElement).href)
    const report = await fetch(href)
    assert.equal(report.status, 200)
    assert.equal(report.headers.get('content-disposition'), 'attachment; filename="demo-store-charges.csv"')
    const lines = (await report.text()).split('\r\n').filter(Boolean)
    assert.match(lines[0]!, /^id,status,createdAt,orderId,paymentLinkId,/)
    const row = (id: string) => lines.find((line) => line.startsWith(`${id},`))?.split(',')
    assert.deepEqual(row(first)?.slice(1, 2), ['settled'])
    const linkId = linkUrl.split('/l/')[1]!
    assert.deepEqual([row(second)?.[1], row(second)?.[3], row(second)?.[4]], ['settled', `${linkId}.1`, linkId])
    await store.close()
  })
})
