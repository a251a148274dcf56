/**
 * Issue 23, refunds in a real browser over the whole processor (src/devnet/testing/purchase-world.ts): a paid order's
 * "Refund" button has the merchant API make a refund and the demo merchant's wallet pay it through the
 * refund's payment link, the wallet gateway and the submitter; the open order page turns "Refunded"
 * without a reload once the store has verified `refund.settled`. And a refund made over the merchant API
 * is paid from its page's payment link by the wallet command (`--merchant 0`), as a charge link is, the
 * refund page following it live and the order turning "Partly refunded".
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'puppeteer-core'
import type { ChargeJson, RefundJson } from '../../src/processor/charges/index.js'
import { waitFor, markPage, readQrCode, runWalletCommand, screenshot, wasReloaded, asDemoMerchant, startPurchaseWorld, type PurchaseWorld } from '../../src/devnet/testing/index.js'

let world: PurchaseWorld
const asMerchant = (method: string, path: string, body?: unknown) => asDemoMerchant(world, method, path, body)

before(async () => {
  world = await startPurchaseWorld()
})

after(async () => {
  await world?.stop()
})

const waitForStatus = (page: Page, selector: string, status: string) =>
  page.waitForFunction((s: string, wanted: string) => document.querySelector(s)?.getAttribute('data-status') === wanted, { timeout: 60_000 }, selector, status)


/** Buys `product` in the store and pays it with the demo wallet button; the order page, paid. */
async function paidOrder(product: string): Promise<{ page: Page; orderId: string; chargeId: string }> {
  const page = await world.browser.newPage()
  await page.setViewport({ width: 900, height: 1100 })
  await page.goto(world.store.url)
  await Promise.all([page.waitForNavigation(), page.click(`button[aria-label="Pay for ${product} with stablecoin"]`)])
  const { id: orderId, chargeId } = world.store.orders()[0]!
  await page.goto(`${world.store.url}/orders/${orderId}`)
  assert.equal(await page.$eval('#refund', (b) => (b as HTMLElement).offsetParent === null), true, 'no Refund button before payment')
  await Promise.all([page.waitForNavigation(), page.click('#demo-wallet')])
  await waitForStatus(page, '#order-status', 'paid')
  return { page, orderId, chargeId }
}

describe('refunds in the browser', () => {
  it('the Refund button: the merchant’s wallet pays the refund, the order turns "Refunded" without a reload, with verified webhooks', async () => {
    const { page, orderId, chargeId } = await paidOrder('Ceramic mug')
    assert.equal(await page.$eval('#refund', (b) => (b as HTMLElement).offsetParent !== null), true, 'the Refund button shows once paid')
    await Promise.all([page.waitForNavigation(), page.click('#refund')])
    await markPage(page)
    await waitForStatus(page, '#order-status', 'refunded')
    assert.equal(await page.$eval('#order-status', (e) => e.textContent), 'Refunded')
    assert.equal(await wasReloaded(page), false)
    await page.waitForFunction(() => document.querySelector('#refund-settlement a') !== null, { timeout: 30_000 })
    await screenshot(page, 'refund-order-refunded')

    const order = world.store.orders().find((o) => o.id === orderId)!
    const types = order.webhooks.map((w) => w.type)
    for (const type of ['charge.settled', 'refund.created', 'refund.confirming', 'refund.settled']) assert.ok(types.includes(type), `the store verified ${type}: ${types.join(', ')}`)
    assert.equal(order.refund?.state, 'mined')
    assert.equal(order.refund?.detail, order.refundTx)

    const charge = (await asMerchant('GET', `/api/v1/charges/${chargeId}`)).body as ChargeJson
    assert.deepEqual([charge.status, charge.amountRefunded], ['refunded', charge.amount])
    const [refund] = (await asMerchant('GET', `/api/v1/charges/${chargeId}/refunds`)).body.refunds as RefundJson[]
    assert.deepEqual([refund!.status, refund!.amount, refund!.settlement?.txHash], ['settled', charge.amount, order.refundTx])
    const [payment] = (await asMerchant('GET', `/api/v1/charges/${chargeId}/payments`)).body.payments
    assert.equal(refund!.recipient, payment.payer, 'refunded to whoever paid the charge')
    await page.close()
  })

  it('a refund link paid with the wallet command (--merchant 0), its page following it live', async () => {
    const { page: orderPage, orderId, chargeId } = await paidOrder('Coffee beans, 250 g')
    const created = await asMerchant('POST', `/api/v1/charges/${chargeId}/refunds`, { amount: '1000000', reason: 'one bag was open' })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const refund = created.body as RefundJson

    const page = await world.browser.newPage()
    await page.setViewport({ width: 390, height: 1000 })
    await page.goto(refund.widgetUrl)
    assert.deepEqual(await page.$eval('#status', (e) => [e.getAttribute('data-status'), e.textContent]), ['awaiting-signature', 'Waiting for the merchant’s wallet'])
    const link = await readQrCode(world.browser, await screenshot(page, 'refund-page'))
    assert.match(link ?? '', new RegExp(`^${world.widget.publicUrl}/r/${refund.id}\\?t=et_[A-Za-z0-9_-]{43}$`))
    await markPage(page)
    await markPage(orderPage)

    const wallet = await runWalletCommand(link!, { DATA_SERVICE_URL: world.dataService.url, RPC_URL: world.chain.rpcUrl }, ['--merchant', '0'])
    assert.equal(wallet.code, 0, wallet.output)
    assert.match(wallet.output, /paying [0-9.]+ USDC: 1\.00 USDC to 0x[0-9a-f]{40}/)
    const txHash = /SUCCESS tx (0x[0-9a-f]{64})/.exec(wallet.output)?.[1]
    assert.ok(txHash, wallet.output)

    await waitForStatus(page, '#status', 'settled')
    assert.equal(await page.$eval('#status', (e) => e.textContent), 'Refunded')
    assert.equal(await page.$eval('#settlement a', (a) => a.textContent), txHash)
    assert.equal(await wasReloaded(page), false)
    await waitForStatus(orderPage, '#order-status', 'partly-refunded')
    assert.equal(await orderPage.$eval('#order-status', (e) => e.textContent), 'Partly refunded')
    assert.equal(await wasReloaded(orderPage), false)
    const charge = await waitFor('the partial refund on the charge', async () => {
      const body = (await asMerchant('GET', `/api/v1/charges/${chargeId}`)).body as ChargeJson
      return body.amountRefunded === '1000000' && body
    })
    assert.equal(charge.status, 'partially-refunded')
    assert.ok(world.store.orders().find((o) => o.id === orderId)!.webhooks.some((w) => w.type === 'refund.settled'))
    // The session token was used up: the link now says so instead of inviting a second payment.
    const again = await fetch(`${world.widget.publicUrl}/r/${refund.id}/api/session`, { headers: { authorization: `Bearer ${new URL(link!).searchParams.get('t')}` } })
    assert.equal(again.status, 409)
    await page.close()
    await orderPage.close()
  })

  it('a refund page and session refuse as a charge’s: 401 without a usable token, 404 unknown, 410 once canceled', async () => {
    const { page: orderPage, chargeId } = await paidOrder('Ceramic mug')
    await orderPage.close()
    const refund = (await asMerchant('POST', `/api/v1/charges/${chargeId}/refunds`, { amount: '500000' })).body as RefundJson
    const session = (id: string, token?: string) => fetch(`${world.widget.publicUrl}/r/${id}/api/session`, token ? { headers: { authorization: `Bearer ${token}` } } : {})
    const problem = async (response: Response) => [response.status, response.headers.get('content-type')?.split(';')[0], response.headers.get('access-control-allow-origin')]
    assert.deepEqual(await problem(await session(refund.id)), [401, 'application/problem+json', '*'])
    assert.deepEqual(await problem(await session(refund.id, 'et_nope')), [401, 'application/problem+json', '*'])
    const used = await session(refund.id, refund.ephemeralToken!)
    assert.equal(used.status, 200)
    assert.deepEqual(
      Object.fromEntries(Object.entries((await used.json()) as Record<string, unknown>).filter(([key]) => ['beneficiary', 'principal', 'orderReference', 'acquirerId'].includes(key))),
      { beneficiary: refund.recipient, principal: '500000', orderReference: refund.orderReference, acquirerId: refund.acquirerId },
    )
    assert.equal((await session(refund.id, refund.ephemeralToken!)).status, 401, 'single use')
    const unknown = `re_${'0'.repeat(24)}`
    assert.deepEqual(await problem(await session(unknown, 'et_x')), [404, 'application/problem+json', '*'])
    assert.equal((await fetch(`${world.widget.publicUrl}/r/${unknown}`)).status, 404)
    assert.equal((await asMerchant('POST', `/api/v1/refunds/${refund.id}/cancel`)).status, 200)
    const closed = await fetch(refund.widgetUrl)
    assert.equal(closed.status, 410)
    assert.match(await closed.text(), /This refund request is canceled: it can no longer be paid/)
    assert.equal((await session(refund.id, 'et_x')).status, 410)
  })
})
