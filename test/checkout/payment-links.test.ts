/**
 * Issue 23 item 2, payment links (real anvil, embedded PostgreSQL, explorer, CA, the checkout engine on
 * mutual TLS and the widget on the same database): a link is created, read, listed and deactivated over
 * the merchant API; its public page creates nothing; each press of its "Pay" button makes an ordinary
 * charge (order id `<link>.<n>`, `paymentLinkId`) that settles on chain with the usual webhooks; unpaid
 * charges fill it for their hold only (busy, 503), paid ones up to `maxUses` for good (used-up, 410; an
 * expired or canceled charge gives its use back); it stops after `expiresAt` and once deactivated. A flood
 * of presses from one address is cut by the per-address bucket, and one from many addresses by the
 * per-link cap on held charges. Bad inputs are problems, never a 500.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { request as httpRequest } from 'node:http'
import type { Hex } from 'viem'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

const BURST = 5
let f: CheckoutFixture
let merchant: TestMerchant
let other: TestMerchant
let widget: RunningWidget
let token: { address: Hex; symbol: string; decimals: number }

async function startTestWidget(env: Record<string, string> = {}): Promise<RunningWidget> {
  const options = widgetOptionsFromEnv({
    RPC_URL: f.chain.rpcUrl,
    SETTLEMENT_CONTRACT: f.chain.deployment.settlementContract,
    START_BLOCK: String(f.chain.deployment.startBlock),
    WIDGET_PORT: '0',
    PAYMENT_LINK_CHARGE_BURST: String(BURST),
    PAYMENT_LINK_CHARGES_PER_MINUTE: '1',
    ...env,
  })
  return startWidget(options, { db: f.db, log: createLogger('silent') })
}

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' })
  ;[merchant, other] = [await f.createMerchant(), await f.createMerchant()]
  widget = await startTestWidget()
  token = f.chain.deployment.tokens[0]!
})
after(async () => {
  await widget?.stop()
  await f?.stop()
})

const linkBody = (extra: Record<string, unknown> = {}) => ({ amount: '7000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, description: 'Coffee beans, 1 kg', ...extra })

async function createLink(extra: Record<string, unknown> = {}, owner = merchant): Promise<any> {
  const answer = await f.request(owner.credentials, 'POST', '/api/v1/payment-links', { body: linkBody(extra) })
  assert.equal(answer.status, 201, JSON.stringify(answer.body))
  return answer.body
}

/** A client on its own loopback address, as a distinct payer network would be (undici's connector drops localAddress; node:http keeps it). */
const from = (localAddress: string) => ({ localAddress })
const local = from('127.0.0.1')

interface Visit {
  status: number
  location: string | undefined
  retryAfter: string | undefined
  html: string
}

function get(url: string, method: string, client = local): Promise<Visit> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { method, localAddress: client.localAddress }, (res) => {
      let html = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (html += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, retryAfter: res.headers['retry-after'], html }))
    })
      .on('error', reject)
      .end()
  })
}

const visit = (base: string, linkId: string, method: 'GET' | 'POST' | 'HEAD', client = local) => get(`${base}/l/${linkId}`, method, client)

const chargesOfLink = async (linkId: string) =>
  (await f.db.pool.query<{ id: string; status: string }>(`SELECT id, status FROM charges WHERE payment_link_id = $1 ORDER BY seq`, [linkId])).rows

function assertProblem(answer: { status: number; headers: Headers; body: any }, status: number, param?: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.status, status)
  if (param !== undefined) assert.equal(answer.body.param, param, JSON.stringify(answer.body))
}

describe('the merchant API', () => {
  test('creates a link: its URL on the widget, the token’s symbol, no uses yet', async () => {
    const link = await createLink({ maxUses: 2, expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
    assert.match(link.id, /^pl_[0-9a-f]{24}$/)
    assert.ok(link.url.endsWith(`/l/${link.id}`), link.url)
    assert.equal(link.status, 'active')
    assert.equal(link.currency, token.symbol)
    assert.equal(link.token, token.address.toLowerCase())
    assert.deepEqual([link.amount, link.maxUses, link.uses, link.chargesCreated, link.deactivatedAt], ['7000000', 2, 0, 0, null])
    assert.deepEqual((await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${link.id}`)).body, link)
  })

  test('lists the merchant’s links newest first in keyset pages, never another merchant’s', async () => {
    const mine = [await createLink({}, other), await createLink({}, other), await createLink({}, other)]
    const first = await f.request(other.credentials, 'GET', '/api/v1/payment-links?limit=2')
    assert.deepEqual(first.body.paymentLinks.map((l: any) => l.id), [mine[2].id, mine[1].id])
    const second = await f.request(other.credentials, 'GET', `/api/v1/payment-links?limit=2&cursor=${first.body.nextCursor}`)
    assert.deepEqual(second.body.paymentLinks.map((l: any) => l.id), [mine[0].id])
    assert.equal(second.body.nextCursor, null)
    assertProblem(await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${mine[0].id}`), 404)
    assertProblem(await f.request(merchant.credentials, 'POST', `/api/v1/payment-links/${mine[0].id}/deactivate`), 404)
  })

  test('refuses bad inputs with a problem naming the field, and stores nothing', async () => {
    const before = (await f.db.pool.query(`SELECT count(*)::int AS n FROM payment_links`)).rows[0].n
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: '-5' }, 'amount'],
      [{ amount: '1.5' }, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ amount: 5 }, 'amount'],
      [{ token: f.chain.deployment.recipients[1]! }, 'token'],
      [{ beneficiary: `0x${'0'.repeat(40)}` }, 'beneficiary'],
      [{ description: '' }, 'description'],
      [{ description: 'a\nb' }, 'description'],
      [{ maxUses: 0 }, 'maxUses'],
      [{ maxUses: 2.5 }, 'maxUses'],
      [{ maxUses: '3' }, 'maxUses'],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ expiresAt: '2099-02-30T00:00:00Z' }, 'expiresAt'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ expiresAt: '2099-01-01T25:00:00Z' }, 'expiresAt'],
      [{ currency: 'USDC' }, 'currency'],
    ]
    for (const [extra, param] of cases) assertProblem(await f.request(merchant.credentials, 'POST', '/api/v1/payment-links', { body: linkBody(extra) }), 400, param)
    assertProblem(await f.request(merchant.credentials, 'POST', '/api/v1/payment-links', { body: { amount: '5' } }), 400)
    assertProblem(await f.request(merchant.credentials, 'POST', '/api/v1/payment-links', { body: '[1]' }), 400)
    assertProblem(await f.request(merchant.credentials, 'GET', '/api/v1/payment-links/pl_nope'), 400, 'linkId')
    assertProblem(await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/pl_${'0'.repeat(24)}`), 404)
    assertProblem(await f.request(merchant.credentials, 'GET', '/api/v1/payment-links?limit=0'), 400, 'limit')
    assertProblem(await f.request(merchant.credentials, 'GET', '/api/v1/payment-links?cursor=abc'), 400, 'cursor')
    assertProblem(await f.request(merchant.credentials, 'POST', `/api/v1/payment-links/pl_${'0'.repeat(24)}/deactivate`, { body: { now: true } }), 400)
    assert.equal((await f.db.pool.query(`SELECT count(*)::int AS n FROM payment_links`)).rows[0].n, before)
  })
})

describe('the public link', () => {
  test('used three times makes three ordinary charges, stops at maxUses, and a canceled charge gives its use back', async () => {
    const link = await createLink({ maxUses: 3 })
    const page = await visit(widget.url, link.id, 'GET')
    assert.equal(page.status, 200)
    assert.match(page.html, /Coffee beans, 1 kg/)
    assert.match(page.html, /7\.00/)
    assert.match(page.html, new RegExp(`<form method="post" action="/l/${link.id}">`))
    for (let i = 0; i < 5; i++) assert.equal((await visit(widget.url, link.id, i % 2 ? 'HEAD' : 'GET')).status, 200)
    assert.deepEqual(await chargesOfLink(link.id), [], 'loading the page creates nothing')

    const charges = []
    for (let n = 1; n <= 3; n++) {
      const pressed = await visit(widget.url, link.id, 'POST', from(`127.0.1.${n}`))
      assert.equal(pressed.status, 303, pressed.html)
      const id = /^\/s\/(ch_[0-9a-f]{24})$/.exec(pressed.location ?? '')?.[1]
      assert.ok(id, pressed.location)
      const charge = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${id}`)).body
      assert.deepEqual([charge.orderId, charge.paymentLinkId, charge.amount, charge.status, charge.beneficiary], [`${link.id}.${n}`, link.id, '7000000', 'awaiting-payment', link.beneficiary])
      assert.equal((await get(`${widget.url}${pressed.location}`, 'GET')).status, 200, 'its payment page')
      charges.push(charge)
    }
    // Three unpaid charges hold the link's three uses for PAYMENT_LINK_HOLD_SECONDS (issue 38 item 6): busy, not used up.
    const fourth = await visit(widget.url, link.id, 'POST', from('127.0.1.4'))
    assert.equal(fourth.status, 503)
    assert.match(fourth.html, /in progress right now/)
    assert.equal((await visit(widget.url, link.id, 'GET')).status, 200)
    const usedUp = (await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${link.id}`)).body
    assert.deepEqual([usedUp.status, usedUp.uses, usedUp.chargesCreated], ['used-up', 3, 3])
    assert.equal((await chargesOfLink(link.id)).length, 3)

    // Reconciliation and webhooks as for any charge: the first is paid and settles.
    await f.pay(charges[0])
    await f.waitForStatus(merchant, charges[0].id, 'settled')
    assert.deepEqual(await f.webhookTypes(charges[0].id), ['charge.confirming', 'charge.settled'])
    // Paid as many times as allowed, the link is used up for good (410), held charges or not.
    const paidOut = await createLink({ maxUses: 1 })
    const only = await visit(widget.url, paidOut.id, 'POST', from('127.0.1.7'))
    const onlyCharge = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${only.location!.slice(3)}`)).body
    await f.pay(onlyCharge)
    await f.waitForStatus(merchant, onlyCharge.id, 'settled')
    const usedUpPress = await visit(widget.url, paidOut.id, 'POST', from('127.0.1.8'))
    assert.equal(usedUpPress.status, 410)
    assert.match(usedUpPress.html, /used as many times as the merchant allowed/)
    assert.doesNotMatch(usedUpPress.html, /<form/)
    assert.equal((await visit(widget.url, paidOut.id, 'GET')).status, 410)

    // A canceled charge gives its use back; a paid one does not.
    assert.equal((await f.request(merchant.credentials, 'POST', `/api/v1/charges/${charges[1].id}/cancel`)).status, 200)
    assert.equal((await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${link.id}`)).body.status, 'active')
    const again = await visit(widget.url, link.id, 'POST', from('127.0.1.5'))
    assert.equal(again.status, 303)
    const listed = await f.request(merchant.credentials, 'GET', `/api/v1/charges?paymentLinkId=${link.id}`)
    assert.deepEqual(listed.body.charges.map((c: any) => c.orderId), [4, 3, 2, 1].map((n) => `${link.id}.${n}`))
    assert.equal((await visit(widget.url, link.id, 'POST', from('127.0.1.6'))).status, 503)
  })

  test('stops after expiresAt', async () => {
    const link = await createLink({ expiresAt: new Date(Date.now() + 1_500).toISOString() })
    assert.equal((await visit(widget.url, link.id, 'POST', from('127.0.2.1'))).status, 303)
    await sleep(Math.max(0, Date.parse(link.expiresAt) - Date.now()) + 50)
    const late = await visit(widget.url, link.id, 'POST', from('127.0.2.2'))
    assert.equal(late.status, 410)
    assert.match(late.html, /expired/)
    assert.equal((await visit(widget.url, link.id, 'GET')).status, 410)
    assert.equal((await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${link.id}`)).body.status, 'expired')
    assert.equal((await chargesOfLink(link.id)).length, 1)
  })

  test('stops once deactivated; deactivating again keeps the first time', async () => {
    const link = await createLink()
    assert.equal((await visit(widget.url, link.id, 'POST', from('127.0.3.1'))).status, 303)
    const off = await f.request(merchant.credentials, 'POST', `/api/v1/payment-links/${link.id}/deactivate`)
    assert.equal(off.status, 200)
    assert.equal(off.body.status, 'deactivated')
    assert.ok(off.body.deactivatedAt)
    const again = await f.request(merchant.credentials, 'POST', `/api/v1/payment-links/${link.id}/deactivate`, { body: {} })
    assert.equal(again.body.deactivatedAt, off.body.deactivatedAt)
    const refused = await visit(widget.url, link.id, 'POST', from('127.0.3.2'))
    assert.equal(refused.status, 410)
    assert.match(refused.html, /turned this payment link off/)
    assert.equal((await chargesOfLink(link.id)).length, 1)
  })

  test('an unknown or malformed link is a 404 page, and creates nothing', async () => {
    assert.equal((await visit(widget.url, `pl_${'0'.repeat(24)}`, 'GET')).status, 404)
    assert.equal((await visit(widget.url, `pl_${'0'.repeat(24)}`, 'POST', from('127.0.4.1'))).status, 404)
    assert.equal((await visit(widget.url, 'pl_<script>', 'GET')).status, 404)
  })
})

describe('a flood of presses', () => {
  test(`from one address: ${BURST} charges, then 429 with Retry-After`, async () => {
    const link = await createLink()
    const flooder = from('127.0.5.1')
    const answers = await Promise.all(Array.from({ length: 60 }, () => visit(widget.url, link.id, 'POST', flooder)))
    const statuses = answers.map((a) => a.status)
    assert.equal(statuses.filter((s) => s === 303).length, BURST, String(statuses))
    assert.equal(statuses.filter((s) => s === 429).length, 60 - BURST, String(statuses))
    assert.equal(answers.find((a) => a.status === 429)!.retryAfter, '60')
    assert.equal((await chargesOfLink(link.id)).length, BURST)
    // Another address is not held back by this one.
    assert.equal((await visit(widget.url, link.id, 'POST', from('127.0.5.2'))).status, 303)
  })

  test('from many addresses: at most PAYMENT_LINK_MAX_OPEN_CHARGES held charges per link, then 503', async () => {
    const capped = await startTestWidget({ PAYMENT_LINK_MAX_OPEN_CHARGES: '8' })
    try {
      const link = await createLink()
      const presses = Array.from({ length: 6 }, (_, a) => from(`127.0.6.${a + 1}`)).flatMap((agent) => Array.from({ length: BURST }, () => visit(capped.url, link.id, 'POST', agent)))
      const answers = await Promise.all(presses)
      const statuses = answers.map((a) => a.status)
      assert.equal(statuses.filter((s) => s === 303).length, 8, String(statuses))
      assert.equal(statuses.filter((s) => s === 503).length, 30 - 8, String(statuses))
      const retryAfter = Number(answers.find((a) => a.status === 503)!.retryAfter)
      assert.ok(retryAfter >= 1 && retryAfter <= 120, `Retry-After ${retryAfter}: when the first hold (PAYMENT_LINK_HOLD_SECONDS, 120) ends`)
      assert.equal((await chargesOfLink(link.id)).length, 8)
    } finally {
      await capped.stop()
    }
  })
})
