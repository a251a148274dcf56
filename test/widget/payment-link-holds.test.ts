/**
 * Issue 38 item 6, payment links that cannot be griefed (real anvil, embedded PostgreSQL, explorer, CA,
 * the checkout engine on mutual TLS, and the widget asking the node through a relay that counts its
 * calls; presses over real sockets from loopback addresses of their own): pressing Pay `maxUses` times
 * without paying fills the link only for PAYMENT_LINK_HOLD_SECONDS (10 s here) (answered 503 `busy` with the
 * Retry-After of the first hold's end, never `used-up`), a paid charge counts for good, every cap (the
 * per-address bucket, the held-charge cap, a used-up link) answers before the node is asked anything, and
 * a payer whose hold ended while others used the link up gets no payment session (no sale past maxUses).
 */
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, test } from 'node:test'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { startRpcProxy, type RpcProxy, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

// Long enough for a few presses on a loaded machine to land within one hold.
const HOLD_SECONDS = 10
const MAX_HELD = 2
let f: CheckoutFixture
let merchant: TestMerchant
let widget: RunningWidget
let rpc: RpcProxy
/** The widget's `eth_call`s (the fee lookup is one; the token list is read with other methods). */
let ethCalls = 0

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' })
  merchant = await f.createMerchant()
  rpc = await startRpcProxy(f.chain.rpcUrl)
  rpc.rewrite = (request, result) => {
    if (request.method === 'eth_call') ethCalls++
    return result
  }
  const options = widgetOptionsFromEnv({
    RPC_URL: rpc.url,
    SETTLEMENT_CONTRACT: f.chain.deployment.settlementContract,
    START_BLOCK: String(f.chain.deployment.startBlock),
    WIDGET_PORT: '0',
    PAYMENT_LINK_HOLD_SECONDS: String(HOLD_SECONDS),
    PAYMENT_LINK_MAX_OPEN_CHARGES: String(MAX_HELD),
  })
  widget = await startWidget(options, { db: f.db, log: createLogger('silent') })
})
after(async () => {
  await widget?.stop()
  await rpc?.stop()
  await f?.stop()
})

async function createLink(extra: Record<string, unknown> = {}): Promise<any> {
  const token = f.chain.deployment.tokens[0]!
  const body = { amount: '3000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, description: 'Concert ticket', ...extra }
  const answer = await f.request(merchant.credentials, 'POST', '/api/v1/payment-links', { body })
  assert.equal(answer.status, 201, JSON.stringify(answer.body))
  return answer.body
}

const readLink = async (id: string) => (await f.request(merchant.credentials, 'GET', `/api/v1/payment-links/${id}`)).body

let nextAddress = 0
/** Presses the link's "Pay" from a loopback address of its own (or `from`). */
function press(linkId: string, from = `127.0.40.${++nextAddress}`): Promise<{ status: number; location?: string; retryAfter?: string; html: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(`${widget.url}/l/${linkId}`, { method: 'POST', localAddress: from }, (res) => {
      let html = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (html += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, retryAfter: res.headers['retry-after'], html }))
    })
      .on('error', reject)
      .setTimeout(20_000, () => reject(new Error('no answer in 20 s')))
      .end()
  })
}

const chargeOf = async (pressed: { location?: string }) => (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${pressed.location!.slice('/s/'.length)}`)).body

test(`pressing Pay maxUses times without paying fills the link for the ${HOLD_SECONDS} s hold only, answered 503 busy, not used-up`, async () => {
  const link = await createLink({ maxUses: 2 })
  for (let i = 0; i < 2; i++) assert.equal((await press(link.id)).status, 303)
  const held = await press(link.id)
  assert.equal(held.status, 503, held.html)
  assert.match(held.html, /in progress right now/)
  assert.match(held.html, /<form method="post"/, 'the page keeps its button')
  assert.ok(Number(held.retryAfter) >= 1 && Number(held.retryAfter) <= HOLD_SECONDS, `Retry-After ${held.retryAfter}`)
  assert.deepEqual([(await readLink(link.id)).status, (await readLink(link.id)).uses], ['used-up', 2])

  await sleep(HOLD_SECONDS * 1000 + 300)
  assert.deepEqual([(await readLink(link.id)).status, (await readLink(link.id)).uses], ['active', 0])
  assert.equal((await press(link.id)).status, 303, 'a payer after the hold gets a charge')
  assert.equal((await press(link.id)).status, 303)
  assert.equal((await press(link.id)).status, 503, 'the flood can fill it again, for one more hold')
})

test('a paid charge counts as a use for good: paid maxUses times, the link is used-up (410) after every hold ended', async () => {
  const link = await createLink({ maxUses: 1 })
  const pressed = await press(link.id)
  assert.equal(pressed.status, 303)
  const charge = await chargeOf(pressed)
  await f.pay(charge)
  await f.waitForStatus(merchant, charge.id, 'settled')
  await sleep(HOLD_SECONDS * 1000 + 300)
  assert.deepEqual([(await readLink(link.id)).status, (await readLink(link.id)).uses], ['used-up', 1])
  const late = await press(link.id)
  assert.equal(late.status, 410)
  assert.match(late.html, /used as many times as the merchant allowed/)
})

test('every cap answers before the node is asked: the held-charge cap, a used-up link, the per-address bucket', async () => {
  const usedUp = await createLink({ maxUses: 1 })
  const bought = await press(usedUp.id)
  await f.pay(await chargeOf(bought))
  await f.waitForStatus(merchant, bought.location!.slice('/s/'.length), 'settled')
  const open = await createLink()
  for (let i = 0; i < MAX_HELD; i++) assert.equal((await press(open.id)).status, 303)

  ethCalls = 0
  const flooder = '127.0.41.1'
  const answers = []
  for (let i = 0; i < 8; i++) answers.push((await press(open.id, flooder)).status)
  assert.deepEqual(answers, [503, 503, 503, 503, 503, 429, 429, 429], 'busy for the burst of 5, then the bucket')
  assert.equal((await press(usedUp.id)).status, 410)
  assert.equal(ethCalls, 0, 'no fee lookup for a refused press')

  await sleep(HOLD_SECONDS * 1000 + 300)
  assert.equal((await press(open.id)).status, 303)
  assert.ok(ethCalls >= 1, 'a charge that is made is priced on the node')
})

async function openSessionOf(pressed: { location?: string }): Promise<{ status: number; detail?: string }> {
  const page = await fetch(`${widget.url}${pressed.location}`)
  const token = /\?t=([A-Za-z0-9_-]+)/.exec(await page.text())?.[1]
  assert.ok(token, `the payment page of ${pressed.location} shows a payment link`)
  const session = await fetch(`${widget.url}${pressed.location}/api/session`, { headers: { authorization: `Bearer ${token}` } })
  return { status: session.status, detail: ((await session.json()) as { detail?: string }).detail }
}

test('a payer whose hold ended gets a payment session while the link has room, and a 409 once others used it up', async () => {
  const roomy = await createLink({ maxUses: 2 })
  const early = await press(roomy.id)
  const full = await createLink({ maxUses: 1 })
  const late = await press(full.id)
  await sleep(HOLD_SECONDS * 1000 + 300)
  assert.equal((await openSessionOf(early)).status, 200, 'past its hold, with room left')
  const other = await press(full.id)
  assert.equal(other.status, 303, 'the hold ended: another payer gets the link')
  const refused = await openSessionOf(late)
  assert.equal(refused.status, 409)
  assert.match(refused.detail!, /came from a payment link that others used up after its hold ended: it can no longer be paid/)
  assert.equal((await openSessionOf(other)).status, 200, 'the payer holding it pays')
})
