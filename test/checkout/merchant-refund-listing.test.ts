/**
 * Issue 38 item 7, the merchant-wide refund listing (real anvil, embedded PostgreSQL, explorer, CA and the
 * checkout engine on mutual TLS): `GET /api/v1/refunds` pages through every refund of the merchant,
 * newest first, each once, in the row order of `refunds.csv`; its filters (status, charge, creation
 * range, the charge's beneficiary and order id) give the same rows as the report with the same query,
 * page after page; bad filters are problems naming the parameter; another merchant sees none of them.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { Hex } from 'viem'
import { MerchantClient } from '../../src/processor/merchant-client/index.js'
import { insertCharge } from '../../src/processor/db/charges.js'
import { insertRefund } from '../../src/processor/db/refunds.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

const BULK = 230
/** The first bulk refund's creation time; the i-th is i seconds later. */
const base = new Date('2026-03-01T00:00:00Z')
let f: CheckoutFixture
let merchant: TestMerchant
let other: TestMerchant
let paid: any
let second: any
let viaApi: any[]

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' })
  ;[merchant, other] = [await f.createMerchant(), await f.createMerchant()]
  paid = await f.createCharge(merchant)
  await f.pay(paid)
  paid = await f.waitForStatus(merchant, paid.id, 'settled')
  const ask = async (body: object) => {
    const answer = await f.request(merchant.credentials, 'POST', `/api/v1/charges/${paid.id}/refunds`, { body })
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    return answer.body
  }
  const kept = await ask({ amount: '1000000', reason: 'damaged, "as shown"' })
  const canceled = await ask({ amount: '2000000' })
  assert.equal((await f.request(merchant.credentials, 'POST', `/api/v1/refunds/${canceled.id}/cancel`)).status, 200)
  viaApi = [kept, canceled]

  // Refunds stored as the engine stores them, many and quickly, one second apart, over two charges.
  second = await f.createCharge(merchant, { beneficiary: f.chain.deployment.recipients[1]! })
  const row = (owner: TestMerchant, charge: any, i: number) => ({
    id: `re_${randomBytes(12).toString('hex')}`, chargeId: charge.id, merchantId: owner.id, amount: String(1_000 + i), reason: `bulk ${i}`,
    token: charge.token as Hex, currency: charge.currency, payer: charge.beneficiary as Hex, recipient: f.chain.deployment.recipients[2]!.toLowerCase() as Hex,
    orderReference: randomBytes16(), acquirerId: ZERO_BYTES16 as Hex, fees: '10', deadline: new Date(Date.now() + 86_400_000),
    createdAt: new Date(base.getTime() + i * 1000), ephemeralTokenHash: randomBytes(8).toString('hex'), ephemeralTokenExpiresAt: new Date(Date.now() + 60_000),
  })
  for (let start = 0; start < BULK; start += 50) {
    await Promise.all(Array.from({ length: Math.min(50, BULK - start) }, (_, k) => start + k).map((i) => insertRefund(f.db.pool, row(merchant, i % 2 === 0 ? paid : second, i))))
  }
  // The other merchant's refunds, on a charge of its own.
  const token = f.chain.deployment.tokens[0]!
  const theirs = await insertCharge(f.db.pool, {
    id: `ch_${randomBytes(12).toString('hex')}`, merchantId: other.id, amount: 5_000_000n, token: token.address.toLowerCase() as Hex, currency: token.symbol,
    beneficiary: f.chain.deployment.recipients[0]!.toLowerCase() as Hex, orderId: 'theirs', orderReference: randomBytes16(), acquirerId: ZERO_BYTES16,
    fees: 10n, deadline: new Date(Date.now() + 86_400_000), createdAt: new Date(), ephemeralTokenHash: 'x', ephemeralTokenExpiresAt: new Date(Date.now() + 60_000),
  })
  for (let i = 0; i < 3; i++) await insertRefund(f.db.pool, row(other, theirs!, i))
})
after(() => f?.stop())

async function allPages(query: string, limit: number, credentials = merchant.credentials): Promise<any[]> {
  const refunds: any[] = []
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const answer = await f.request(credentials, 'GET', `/api/v1/refunds?limit=${limit}${query && `&${query}`}${cursor ? `&cursor=${cursor}` : ''}`)
    assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`)
    assert.ok(answer.body.refunds.length <= limit)
    refunds.push(...answer.body.refunds)
    cursor = answer.body.nextCursor
  }
  return refunds
}

/** The ids of refunds.csv's rows (the id is the first column and never quoted). */
async function reportIds(query: string, credentials = merchant.credentials): Promise<string[]> {
  const answer = await f.request(credentials, 'GET', `/api/v1/reports/refunds.csv${query && `?${query}`}`)
  assert.equal(answer.status, 200, String(answer.body))
  return (answer.body as string).split('\r\n').slice(1, -1).map((line) => line.slice(0, line.indexOf(',')))
}

describe('GET /api/v1/refunds', () => {
  test('pages through every refund of the merchant once, newest first, in the row order of refunds.csv', async () => {
    const listed = await allPages('', 100)
    assert.equal(listed.length, BULK + viaApi.length)
    assert.equal(new Set(listed.map((r) => r.id)).size, listed.length, 'each refund once')
    assert.deepEqual(listed.map((r) => r.id), await reportIds(''))
    assert.deepEqual(listed.slice(-2).map((r) => r.id), viaApi.map((r) => r.id).reverse(), 'the first ones made come last')
    for (const made of viaApi) {
      const read = await f.request(merchant.credentials, 'GET', `/api/v1/refunds/${made.id}`)
      assert.deepEqual(listed.find((r) => r.id === made.id), read.body, 'a listed refund is the refund as it reads')
    }
    const first = await f.request(merchant.credentials, 'GET', '/api/v1/refunds')
    assert.equal(first.body.refunds.length, 20, 'the default page')
    assert.deepEqual(first.body.refunds.map((r: any) => r.id), listed.slice(0, 20).map((r) => r.id))
  })

  test('filters by status, charge, creation range and the charge’s beneficiary and order id, page after page, as the report does', async () => {
    const everything = await allPages('', 100)
    const agree = async (query: string, expected: (r: any) => boolean, count: number) => {
      const listed = await allPages(query, 7)
      assert.deepEqual(listed.map((r) => r.id), everything.filter(expected).map((r) => r.id), query)
      assert.equal(listed.length, count, query)
      assert.deepEqual(await reportIds(query), listed.map((r) => r.id), `${query}: refunds.csv`)
    }
    await agree('refundStatus=canceled', (r) => r.status === 'canceled', 1)
    await agree('refundStatus=awaiting-signature', (r) => r.status === 'awaiting-signature', BULK + 1)
    await agree(`chargeId=${second.id}`, (r) => r.chargeId === second.id, BULK / 2)
    await agree(`orderId=${encodeURIComponent(paid.orderId)}`, (r) => r.chargeId === paid.id, BULK / 2 + 2)
    await agree(`beneficiary=${f.chain.deployment.recipients[1]!.toUpperCase().replace('0X', '0x')}`, (r) => r.chargeId === second.id, BULK / 2)
    const inRange = (r: any) => Date.parse(r.createdAt) >= base.getTime() + 100_000 && Date.parse(r.createdAt) < base.getTime() + 150_000
    await agree(`from=${new Date(base.getTime() + 100_000).toISOString()}&to=${new Date(base.getTime() + 150_000).toISOString()}`, inRange, 50)
    await agree(`from=2026-03-01T00:01:40Z&to=2026-03-01T00:02:30Z&chargeId=${paid.id}`, (r) => inRange(r) && r.chargeId === paid.id, 25)
    await agree('from=2026-03-02', (r) => viaApi.some((made) => made.id === r.id), 2)
    await agree('to=2026-03-01', () => false, 0)
  })

  test('the typed client pages through them as the API does', async () => {
    const client = new MerchantClient({ baseUrl: f.checkout.url, credentials: { ...merchant.credentials, ca: f.checkout.caCertificatePem }, servername: 'localhost' })
    try {
      const seen: string[] = []
      for await (const refund of client.allRefunds({ chargeId: second.id, limit: 40 })) seen.push(refund.id)
      assert.deepEqual(seen, (await allPages(`chargeId=${second.id}`, 100)).map((r) => r.id))
      const page = await client.listMerchantRefunds({ refundStatus: 'canceled' })
      assert.deepEqual(page, { refunds: [await client.getRefund(viaApi[1].id)], nextCursor: null })
      await assert.rejects(client.listMerchantRefunds({ limit: 0 }), (error: any) => error.status === 400 && error.problem.param === 'limit')
    } finally {
      await client.close()
    }
  })

  test('bad filters and cursors are problems naming the parameter', async () => {
    const cases: [string, string][] = [
      ['refundStatus=refunded', 'refundStatus'],
      ['status=settled', 'status'],
      ['chargeId=ch_1', 'chargeId'],
      ['from=2026-02-30', 'from'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
      ['beneficiary=nope', 'beneficiary'],
      ['cursor=abc', 'cursor'],
      [`cursor=${Buffer.from('c1.0').toString('base64url')}`, 'cursor'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['color=red', 'color'],
    ]
    for (const [query, param] of cases) {
      const answer = await f.request(merchant.credentials, 'GET', `/api/v1/refunds?${query}`)
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`)
      assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(answer.body.param, param, query)
    }
  })

  test('another merchant sees only its own refunds, and none by the first one’s charge', async () => {
    const theirs = await allPages('', 2, other.credentials)
    assert.equal(theirs.length, 3)
    assert.ok(theirs.every((r) => r.reason.startsWith('bulk ') && r.chargeId !== paid.id && r.chargeId !== second.id))
    assert.deepEqual(await allPages(`chargeId=${paid.id}`, 10, other.credentials), [])
    assert.deepEqual(await allPages(`orderId=${encodeURIComponent(paid.orderId)}`, 10, other.credentials), [])
    assert.deepEqual(await reportIds('', other.credentials), theirs.map((r) => r.id))
    const mine = await allPages('', 100)
    assert.ok(!mine.some((r) => theirs.some((t) => t.id === r.id)))
  })
})
