/**
 * The merchant API's OpenAPI document (`GET /openapi.json` on the checkout server) against the engine
 * itself, over mutual TLS with the real CA: the served document validates, and every answer real
 * requests get — charges created, replayed, listed, read, paid on anvil, canceled; payments; the webhook
 * delivery log and retries; health and readiness, ok and degraded; metrics; and every refusal (400, 401, 404, 409, 413, 415,
 * 422, and 503 with the node failing the fee lookup) — matches the document's schema for that path and status. Every documented answer is seen.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createKeyAndCsr, issueClientCertificate } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { checkoutOpenApi } from '../../src/processor/checkout/api/openapi.js'
import type { ChargeJson } from '../../src/processor/charges/index.js'
import { waitFor, nextOrderId, startCheckoutFixture, type CheckoutFixture, type Credentials, type TestMerchant, startRpcProxy } from '../../src/devnet/testing/index.js'
import { openApiChecker, type Answer, type OpenApiChecker } from './openapi-checker.js'
import { generateWebhookSecret, seedWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { TEST_ENCRYPTION_KEY, testSealer } from '../checkout/webhooks-fixture.js'

let f: CheckoutFixture
let merchant: TestMerchant
let openApi: OpenApiChecker
/** A certificate from the right CA that the database does not know: the handshake passes, every request is a 401. */
let stranger: Credentials

before(async () => {
  f = await startCheckoutFixture({ WEBHOOK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, WEBHOOK_ROTATIONS_PER_HOUR: '10' })
  merchant = await f.createMerchant()
  const served = await f.request(merchant.credentials, 'GET', '/openapi.json')
  assert.equal(served.status, 200)
  assert.deepEqual(served.body, JSON.parse(JSON.stringify(checkoutOpenApi())))
  openApi = await openApiChecker(served.body, { otherMethods: { status: 404, response: 'NotFound' } })
  openApi.check('GET', '/openapi.json', served)

  const { keys, privateKeyPem } = await createKeyAndCsr()
  const publicKey = new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
  const notBefore = new Date(Date.now() - 60_000)
  const certificate = await issueClientCertificate(await f.ca.authority(), { id: merchant.id, name: merchant.name }, publicKey, {
    notBefore,
    notAfter: new Date(notBefore.getTime() + 86_400_000),
  })
  stranger = { key: privateKeyPem, cert: certificate.toString('pem') }
})

after(() => f?.stop())

const token = () => f.chain.deployment.tokens[0]!
const chargeBody = (overrides: Record<string, unknown> = {}) => ({
  amount: '4000000',
  token: token().address,
  beneficiary: f.chain.deployment.recipients[0]!,
  currency: token().symbol,
  orderId: nextOrderId(),
  ...overrides,
})

/** A request as `merchant` (or other credentials), checked against the document under `template`. */
async function check(
  status: number,
  method: string,
  template: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
  credentials = merchant.credentials,
): Promise<Answer> {
  const answer = await f.request(credentials, method, path, init)
  assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`)
  openApi.check(method, template, answer)
  return answer
}

const charges = '/api/v1/charges'
const oneCharge = '/api/v1/charges/{id}'
const payments = '/api/v1/charges/{id}/payments'
const cancel = '/api/v1/charges/{id}/cancel'
const deliveries = '/api/v1/webhook-deliveries'
const retry = '/api/v1/webhook-deliveries/{id}/retry'
const unknownCharge = `ch_${'0'.repeat(24)}`
const big = 'x'.repeat(17 * 1024)

describe('charges', () => {
  let created: ChargeJson

  test('created, replayed with its Idempotency-Key, refused for another body or a known orderId', async () => {
    const body = chargeBody()
    created = (await check(201, 'POST', charges, charges, { body, headers: { 'Idempotency-Key': 'openapi-1' } })).body as ChargeJson
    const replay = await check(201, 'POST', charges, charges, { body, headers: { 'Idempotency-Key': 'openapi-1' } })
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    await check(422, 'POST', charges, charges, { body: { ...body, amount: '5' }, headers: { 'Idempotency-Key': 'openapi-1' } })
    const duplicate = await check(409, 'POST', charges, charges, { body: { ...chargeBody(), orderId: body.orderId } })
    assert.equal((duplicate.body as { chargeId: string }).chargeId, created.id)
  })

  test('every refused creation is a documented problem', async () => {
    const refusals: { status: number; body?: unknown; headers?: Record<string, string> }[] = [
      { status: 400, body: '{"amount":' },
      { status: 400, body: '[1]' },
      { status: 400, body: chargeBody({ amount: undefined }) },
      { status: 400, body: chargeBody({ color: 'red' }) },
      { status: 400, body: chargeBody({ amount: '007' }) },
      { status: 400, body: chargeBody({ amount: 7 }) },
      { status: 400, body: chargeBody({ token: '0x0000000000000000000000000000000000000001' }) },
      { status: 400, body: chargeBody({ currency: 'XYZ' }) },
      { status: 400, body: chargeBody({ beneficiary: '0x0000000000000000000000000000000000000000' }) },
      { status: 400, body: chargeBody(), headers: { 'Idempotency-Key': 'ü' } },
      { status: 413, body: chargeBody({ orderId: big }) },
      { status: 415, body: 'amount=1', headers: { 'content-type': 'text/plain' } },
    ]
    for (const { status, ...init } of refusals) await check(status, 'POST', charges, charges, init)
  })

  test('a node failing the fee lookup is a documented 503', async () => {
    const node = await startRpcProxy(f.chain.rpcUrl)
    const engine = await f.startCheckout({ RPC_URL: node.url })
    try {
      node.down = true
      const answer = await f.request(merchant.credentials, 'POST', charges, { body: chargeBody() }, engine)
      assert.equal(answer.status, 503)
      openApi.check('POST', charges, answer)
    } finally {
      await engine.stop()
      await node.stop()
    }
  })

  test('read, listed in keyset pages with filters, refused parameters', async () => {
    await check(200, 'GET', oneCharge, `${charges}/${created.id}`)
    await check(404, 'GET', oneCharge, `${charges}/${unknownCharge}`)
    await check(400, 'GET', oneCharge, `${charges}/nope`)
    for (let i = 0; i < 2; i++) await check(201, 'POST', charges, charges, { body: chargeBody() })
    let cursor: string | null = null
    let listed = 0
    do {
      const page = (await check(200, 'GET', charges, `${charges}?limit=2&status=awaiting-payment${cursor ? `&cursor=${cursor}` : ''}`)).body as { charges: unknown[]; nextCursor: string | null }
      listed += page.charges.length
      cursor = page.nextCursor
    } while (cursor)
    assert.ok(listed >= 3)
    for (const query of ['?limit=0', '?limit=2&limit=3', '?status=paid', '?cursor=bm9wZQ', '?color=red']) await check(400, 'GET', charges, `${charges}${query}`)
  })

  test('paid on the chain: settled, with its payment', async () => {
    const charge = (await check(201, 'POST', charges, charges, { body: chargeBody() })).body as ChargeJson
    await check(200, 'GET', payments, `${charges}/${charge.id}/payments`)
    await f.pay(charge)
    await f.waitForStatus(merchant, charge.id, 'settled')
    const settled = await check(200, 'GET', oneCharge, `${charges}/${charge.id}`)
    assert.equal((settled.body as ChargeJson).status, 'settled')
    const paid = await check(200, 'GET', payments, `${charges}/${charge.id}/payments`)
    assert.equal((paid.body as { payments: { outcome: string }[] }).payments[0]!.outcome, 'matched')
    await check(404, 'GET', payments, `${charges}/${unknownCharge}/payments`)
    await check(400, 'GET', payments, `${charges}/x/payments`)
  })

  test('canceled once, then refused', async () => {
    await check(400, 'POST', cancel, `${charges}/${created.id}/cancel`, { body: { reason: 'no' } })
    await check(415, 'POST', cancel, `${charges}/${created.id}/cancel`, { body: 'now', headers: { 'content-type': 'text/plain' } })
    await check(413, 'POST', cancel, `${charges}/${created.id}/cancel`, { body: { reason: big } })
    await check(200, 'POST', cancel, `${charges}/${created.id}/cancel`, { body: {} })
    await check(409, 'POST', cancel, `${charges}/${created.id}/cancel`)
    await check(404, 'POST', cancel, `${charges}/${unknownCharge}/cancel`)
  })
})

describe('webhook deliveries', () => {
  test('the log with its filters and pages, a retry, and refusals', async () => {
    const all = await waitFor('webhook events of the settled and canceled charges', async () => {
      const answer = await f.request(merchant.credentials, 'GET', `${deliveries}?limit=100`)
      return (answer.body.deliveries as unknown[]).length >= 3 ? answer : undefined
    })
    openApi.check('GET', deliveries, all)
    const [first] = all.body.deliveries as { id: string; chargeId: string }[]
    await check(200, 'GET', deliveries, `${deliveries}?chargeId=${first!.chargeId}`)
    await check(200, 'GET', deliveries, `${deliveries}?status=pending`)
    const page = await check(200, 'GET', deliveries, `${deliveries}?limit=1`)
    await check(200, 'GET', deliveries, `${deliveries}?limit=1&cursor=${(page.body as { nextCursor: string }).nextCursor}`)
    for (const query of ['?limit=0', '?status=lost', '?cursor=x', '?color=red']) await check(400, 'GET', deliveries, `${deliveries}${query}`)

    await check(202, 'POST', retry, `${deliveries}/${first!.id}/retry`)
    await check(404, 'POST', retry, `${deliveries}/msg_${'0'.repeat(24)}/retry`)
    await check(400, 'POST', retry, `${deliveries}/nope/retry`)
  })
})

describe('payment links and reports', () => {
  const links = '/api/v1/payment-links'
  const oneLink = '/api/v1/payment-links/{linkId}'
  const deactivate = '/api/v1/payment-links/{linkId}/deactivate'
  const report = '/api/v1/reports/charges.csv'
  const refundReport = '/api/v1/reports/refunds.csv'
  const unknownLink = `pl_${'0'.repeat(24)}`
  const linkBody = (overrides: Record<string, unknown> = {}) => ({ amount: '3000000', token: token().address, beneficiary: f.chain.deployment.recipients[0]!, description: 'A link', ...overrides })

  test('created, read, listed, deactivated, and refused', async () => {
    const link = (await check(201, 'POST', links, links, { body: linkBody({ maxUses: 2, expiresAt: new Date(Date.now() + 60_000).toISOString() }) })).body as { id: string }
    await check(201, 'POST', links, links, { body: linkBody() })
    await check(200, 'GET', oneLink, `${links}/${link.id}`)
    await check(404, 'GET', oneLink, `${links}/${unknownLink}`)
    await check(400, 'GET', oneLink, `${links}/nope`)
    const page = (await check(200, 'GET', links, `${links}?limit=1`)).body as { nextCursor: string }
    await check(200, 'GET', links, `${links}?limit=1&cursor=${page.nextCursor}`)
    await check(400, 'GET', links, `${links}?limit=1000`)
    await check(200, 'POST', deactivate, `${links}/${link.id}/deactivate`)
    await check(404, 'POST', deactivate, `${links}/${unknownLink}/deactivate`)
    await check(400, 'POST', deactivate, `${links}/${link.id}/deactivate`, { body: { now: 1 } })
    await check(413, 'POST', deactivate, `${links}/${link.id}/deactivate`, { body: { x: big } })
    await check(415, 'POST', deactivate, `${links}/${link.id}/deactivate`, { body: 'x', headers: { 'content-type': 'text/plain' } })
    await check(400, 'POST', links, links, { body: linkBody({ maxUses: 0 }) })
    await check(413, 'POST', links, links, { body: linkBody({ description: big }) })
    await check(415, 'POST', links, links, { body: 'amount=1', headers: { 'content-type': 'text/plain' } })
    const node = await startRpcProxy(f.chain.rpcUrl)
    const engine = await f.startCheckout({ RPC_URL: node.url })
    try {
      node.down = true
      const answer = await f.request(merchant.credentials, 'POST', links, { body: linkBody() }, engine)
      assert.equal(answer.status, 503)
      openApi.check('POST', links, answer)
    } finally {
      await engine.stop()
      await node.stop()
    }
  })

  test('the charges report and the listing’s filters', async () => {
    const csv = await check(200, 'GET', report, `${report}?status=settled&from=2020-01-01`)
    assert.match(csv.body as string, /^id,status,createdAt,/)
    await check(400, 'GET', report, `${report}?cursor=abc`)
    const refunds = await check(200, 'GET', refundReport, `${refundReport}?refundStatus=settled&from=2020-01-01`)
    assert.match(refunds.body as string, /^id,status,createdAt,chargeId,/)
    await check(400, 'GET', refundReport, `${refundReport}?status=settled`)
    await check(200, 'GET', charges, `${charges}?from=2020-01-01&to=2099-01-01T00:00:00Z&beneficiary=${f.chain.deployment.recipients[0]!}&orderId=x&paymentLinkId=${unknownLink}`)
    await check(400, 'GET', charges, `${charges}?from=2020-02-30`)
  })

  test('a certificate the database does not know is a 401 on each of these routes', async () => {
    await check(401, 'POST', links, links, { body: linkBody() }, stranger)
    await check(401, 'GET', links, links, {}, stranger)
    await check(401, 'GET', oneLink, `${links}/${unknownLink}`, {}, stranger)
    await check(401, 'POST', deactivate, `${links}/${unknownLink}/deactivate`, {}, stranger)
    await check(401, 'GET', report, report, {}, stranger)
    await check(401, 'GET', refundReport, refundReport, {}, stranger)
  })
})

describe('refunds', () => {
  const refunds = '/api/v1/charges/{id}/refunds'
  const oneRefund = '/api/v1/refunds/{refundId}'
  const cancelRefund = '/api/v1/refunds/{refundId}/cancel'
  const allRefunds = '/api/v1/refunds'
  const unknownRefund = `re_${'0'.repeat(24)}`

  test('created, replayed, listed, read, canceled, and refused', async () => {
    const charge = (await check(201, 'POST', charges, charges, { body: chargeBody() })).body as ChargeJson
    await check(409, 'POST', refunds, `${charges}/${charge.id}/refunds`, { body: { amount: '1' } })
    await f.pay(charge)
    await f.waitForStatus(merchant, charge.id, 'settled')
    const path = `${charges}/${charge.id}/refunds`
    const headers = { 'Idempotency-Key': 'openapi-refund-1' }
    const created = (await check(201, 'POST', refunds, path, { body: { amount: '1000', reason: 'returned' }, headers })).body as { id: string }
    await check(201, 'POST', refunds, path, { body: { amount: '1000', reason: 'returned' }, headers })
    await check(422, 'POST', refunds, path, { body: { amount: '1001' }, headers })
    await check(409, 'POST', refunds, path, { body: { amount: chargeBody().amount } })
    for (const body of [{ amount: '-1' }, { amount: '1.5' }, { amount: 1 }, { amount: '1', color: 'red' }]) await check(400, 'POST', refunds, path, { body })
    await check(404, 'POST', refunds, `${charges}/${unknownCharge}/refunds`, { body: { amount: '1' } })
    await check(413, 'POST', refunds, path, { body: { amount: '1', reason: big } })
    await check(415, 'POST', refunds, path, { body: 'amount=1', headers: { 'content-type': 'text/plain' } })
    await check(200, 'GET', refunds, path)
    await check(400, 'GET', refunds, `${charges}/x/refunds`)
    await check(404, 'GET', refunds, `${charges}/${unknownCharge}/refunds`)
    await check(200, 'GET', oneRefund, `/api/v1/refunds/${created.id}`)
    const page = await check(200, 'GET', allRefunds, `${allRefunds}?limit=1&refundStatus=awaiting-signature&chargeId=${charge.id}`)
    assert.deepEqual((page.body as { refunds: { id: string }[] }).refunds.map((r) => r.id), [created.id])
    for (const query of ['refundStatus=paid', 'status=settled', 'cursor=abc', 'limit=0', 'from=2026-02-30']) await check(400, 'GET', allRefunds, `${allRefunds}?${query}`)
    await check(400, 'GET', oneRefund, '/api/v1/refunds/x')
    await check(404, 'GET', oneRefund, `/api/v1/refunds/${unknownRefund}`)
    await check(400, 'POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`, { body: { now: 1 } })
    await check(413, 'POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`, { body: { x: big } })
    await check(415, 'POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`, { body: 'x', headers: { 'content-type': 'text/plain' } })
    await check(200, 'POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`)
    await check(409, 'POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`)
    await check(404, 'POST', cancelRefund, `/api/v1/refunds/${unknownRefund}/cancel`)
    for (const [method, template, url] of [['POST', refunds, path], ['GET', refunds, path], ['GET', oneRefund, `/api/v1/refunds/${created.id}`], ['GET', allRefunds, allRefunds], ['POST', cancelRefund, `/api/v1/refunds/${created.id}/cancel`]] as const) {
      await check(401, method, template, url, method === 'POST' && template === refunds ? { body: { amount: '1' } } : {}, stranger)
    }
    const node = await startRpcProxy(f.chain.rpcUrl)
    const engine = await f.startCheckout({ RPC_URL: node.url })
    try {
      node.down = true
      const answer = await f.request(merchant.credentials, 'POST', path, { body: { amount: '1' } }, engine)
      assert.equal(answer.status, 503)
      openApi.check('POST', refunds, answer)
    } finally {
      await engine.stop()
      await node.stop()
    }
  })
})

describe('webhook endpoint', () => {
  const endpoint = '/api/v1/webhook-endpoint'
  const rotate = '/api/v1/webhook-endpoint/rotate-secret'

  test('read, changed, rotated, and refused', async () => {
    await check(503, 'POST', rotate, rotate)
    await seedWebhookSecret(f.db, generateWebhookSecret(), testSealer)
    await check(200, 'GET', endpoint, endpoint)
    await check(200, 'PUT', endpoint, endpoint, { body: { webhookUrl: 'https://shop.example/hooks' } })
    for (const body of [{ webhookUrl: 'ftp://shop.example' }, {}, { webhookUrl: 'https://shop.example', x: 1 }]) await check(400, 'PUT', endpoint, endpoint, { body })
    await check(413, 'PUT', endpoint, endpoint, { body: { webhookUrl: big } })
    await check(415, 'PUT', endpoint, endpoint, { body: 'webhookUrl=x', headers: { 'content-type': 'text/plain' } })
    await check(201, 'POST', rotate, rotate)
    await check(201, 'POST', rotate, rotate, { body: { overlapHours: 1 } })
    await check(409, 'POST', rotate, rotate, { body: { overlapHours: 2 } })
    await check(201, 'POST', rotate, rotate, { body: { overlapHours: 0 } })
    for (const body of [{ overlapHours: -1 }, { overlapHours: '1' }, { now: 1 }]) await check(400, 'POST', rotate, rotate, { body })
    await check(413, 'POST', rotate, rotate, { body: { x: big } })
    await check(415, 'POST', rotate, rotate, { body: 'x', headers: { 'content-type': 'text/plain' } })
    await check(429, 'POST', rotate, rotate, { body: { overlapHours: 0 } })
    await check(401, 'GET', endpoint, endpoint, {}, stranger)
    await check(401, 'PUT', endpoint, endpoint, { body: { webhookUrl: 'https://shop.example/hooks' } }, stranger)
    await check(401, 'POST', rotate, rotate, {}, stranger)
    const otherKey = await f.startCheckout({ WEBHOOK_ENCRYPTION_KEY: 'not-the-workers-key-0123456789abcdef' })
    try {
      for (const [method, template, init] of [['GET', endpoint, {}], ['PUT', endpoint, { body: { webhookUrl: 'https://elsewhere.example/hooks' } }], ['POST', rotate, {}]] as const) {
        const answer = await f.request(merchant.credentials, method, template, init, otherKey)
        assert.equal(answer.status, 503, `${method} ${template}: ${JSON.stringify(answer.body)}`)
        assert.match(answer.body.detail, /cannot open the webhook secrets/)
        openApi.check(method, template, answer)
      }
      assert.equal(((await check(200, 'GET', endpoint, endpoint)).body as { webhookUrl: string }).webhookUrl, 'https://shop.example/hooks', 'the refused change changed nothing')
    } finally {
      await otherKey.stop()
    }
  })
})

describe('the rest', () => {
  test('a certificate the database does not know is a 401 on every merchant route', async () => {
    await check(401, 'POST', charges, charges, { body: chargeBody() }, stranger)
    await check(401, 'GET', charges, charges, {}, stranger)
    await check(401, 'GET', oneCharge, `${charges}/${unknownCharge}`, {}, stranger)
    await check(401, 'GET', payments, `${charges}/${unknownCharge}/payments`, {}, stranger)
    await check(401, 'POST', cancel, `${charges}/${unknownCharge}/cancel`, {}, stranger)
    await check(401, 'GET', deliveries, deliveries, {}, stranger)
    await check(401, 'POST', retry, `${deliveries}/msg_${'0'.repeat(24)}/retry`, {}, stranger)
  })

  test('an unknown route or method is the documented 404', async () => {
    const missing = await f.request(merchant.credentials, 'GET', '/api/v1/nothing')
    assert.equal(missing.status, 404)
    openApi.checkSchema('#/components/responses/NotFound/content/application~1problem+json/schema', missing.body)
    openApi.check('DELETE', charges, await f.request(merchant.credentials, 'DELETE', charges))
  })

  test('health and readiness: ok, then degraded and not ready on a replica whose explorer is unreachable; metrics', async () => {
    await check(200, 'GET', '/health', '/health')
    assert.deepEqual((await check(200, 'GET', '/ready', '/ready')).body, { status: 'ready' })
    const metrics = await check(200, 'GET', '/metrics', '/metrics')
    assert.match(metrics.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/)
    await f.checkout.stop()
    const blind = await f.startCheckout({ EXPLORER_URL: 'http://127.0.0.1:9' })
    await waitFor('the blind engine to take the reconciler lock', () => blind.reconcilerRole() === 'active')
    const health = await f.request(merchant.credentials, 'GET', '/health', {}, blind)
    assert.equal(health.status, 503)
    openApi.check('GET', '/health', health)
    const ready = await f.request(merchant.credentials, 'GET', '/ready', {}, blind)
    assert.equal(ready.status, 503)
    openApi.check('GET', '/ready', ready)
    assert.match(ready.body.detail, /does not reach the explorer at EXPLORER_URL/)
  })
})

test('every documented answer was seen', () => {
  assert.deepEqual(openApi.unseen(), [])
})
