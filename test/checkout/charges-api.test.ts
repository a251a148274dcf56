/**
 * The merchant API's charge endpoints over mutual TLS: creation (fees from the contract, the merchant's
 * acquirer id, deadline, widget URL, payment-page token), reads, keyset listing, cancellation, and every
 * refusal with its documented status and problem body — with nothing stored for a refused request.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createPublicClient, http, type Hex } from 'viem'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { startRpcProxy, nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant
let token: { address: Hex; symbol: string }
let beneficiary: Hex

before(async () => {
  f = await startCheckoutFixture()
  merchant = await f.createMerchant()
  token = f.chain.deployment.tokens[0]!
  beneficiary = f.chain.deployment.recipients[0]!
})
after(() => f?.stop())

const validBody = () => ({ amount: '25000000', token: token.address, beneficiary, currency: token.symbol, orderId: nextOrderId() })

async function calculateFees(amount: bigint, acquirerId: Hex): Promise<bigint> {
  const client = createPublicClient({ transport: http(f.chain.rpcUrl) })
  return client.readContract({ address: f.chain.deployment.settlementContract, abi: settlementAbi, functionName: 'calculateFees', args: [amount, acquirerId] })
}

async function storedCounts(): Promise<Record<string, number>> {
  const { rows } = await f.db.pool.query(
    `SELECT (SELECT count(*) FROM charges)::int AS charges, (SELECT count(*) FROM idempotency_keys)::int AS keys, (SELECT count(*) FROM webhook_events)::int AS events`,
  )
  return rows[0]
}

function assertProblem(answer: { status: number; headers: Headers; body: any }, status: number, param?: string, detail?: RegExp): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.deepEqual(Object.keys(answer.body).sort(), ['detail', 'status', 'title', 'type', ...(param === undefined ? [] : ['param'])].sort())
  assert.equal(answer.body.status, status)
  assert.match(answer.body.type, /^https:\/\//)
  assert.equal(typeof answer.body.title, 'string')
  if (param !== undefined) assert.equal(answer.body.param, param)
  if (detail) assert.match(answer.body.detail, detail)
}

describe('POST /api/v1/charges', () => {
  test('creates a charge awaiting payment: fees from the contract, totalToPay, deadline, widget URL and a payment-page token', async () => {
    const body = validBody()
    const answer = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body })
    assert.equal(answer.status, 201)
    const charge = answer.body
    assert.deepEqual(Object.keys(charge), [
      'id', 'status', 'amount', 'token', 'currency', 'beneficiary', 'orderId', 'orderReference', 'acquirerId', 'fees', 'totalToPay',
      'amountRefunded', 'deadline', 'widgetUrl', 'ephemeralToken', 'createdAt', 'settlement', 'paymentLinkId',
    ])
    assert.match(charge.id, /^ch_[0-9a-f]{24}$/)
    assert.equal(answer.headers.get('location'), `/api/v1/charges/${charge.id}`)
    const fees = await calculateFees(25_000_000n, ZERO_BYTES16)
    assert.deepEqual(
      { ...charge, id: undefined, orderReference: undefined, deadline: undefined, createdAt: undefined, ephemeralToken: undefined },
      {
        id: undefined,
        status: 'awaiting-payment',
        amount: '25000000',
        token: token.address.toLowerCase(),
        currency: token.symbol,
        beneficiary: beneficiary.toLowerCase(),
        orderId: body.orderId,
        orderReference: undefined,
        acquirerId: ZERO_BYTES16,
        fees: fees.toString(),
        totalToPay: (25_000_000n + fees).toString(),
        amountRefunded: '0',
        deadline: undefined,
        widgetUrl: `http://127.0.0.1:4004/s/${charge.id}`,
        ephemeralToken: undefined,
        createdAt: undefined,
        settlement: null,
        paymentLinkId: null,
      },
    )
    assert.match(charge.orderReference, /^0x[0-9a-f]{32}$/)
    assert.equal(Date.parse(charge.deadline) - Date.parse(charge.createdAt), 900_000)
    assert.match(charge.ephemeralToken, /^et_[A-Za-z0-9_-]{43}$/)
    const { rows } = await f.db.pool.query(`SELECT ephemeral_token_hash, ephemeral_token_expires_at FROM charges WHERE id = $1`, [charge.id])
    assert.equal(rows[0].ephemeral_token_hash, createHash('sha256').update(charge.ephemeralToken).digest('hex'))
    const lifetime = rows[0].ephemeral_token_expires_at.getTime() - Date.parse(charge.createdAt)
    assert.ok(lifetime > 0 && lifetime <= 300_000, `token lives ${lifetime} ms`)
  })

  test("a merchant with an acquirer id: the charge carries it and its fees include the acquirer's", async () => {
    const acquirer = f.chain.deployment.acquirers[0]!
    const acquiring = await f.createMerchant(acquirer.id)
    const charge = await f.createCharge(acquiring, { amount: '40000000' })
    assert.equal(charge.acquirerId, acquirer.id.toLowerCase())
    const fees = await calculateFees(40_000_000n, acquirer.id)
    assert.ok(fees > (await calculateFees(40_000_000n, ZERO_BYTES16)))
    assert.equal(charge.fees, fees.toString())
    assert.equal(charge.totalToPay, (40_000_000n + fees).toString())
  })

  test('a repeated orderId is 409 naming the existing charge; another merchant may use it', async () => {
    const first = await f.createCharge(merchant)
    const before = await storedCounts()
    const again = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body: { ...validBody(), orderId: first.orderId } })
    assert.equal(again.status, 409)
    assert.equal(again.body.chargeId, first.id)
    assert.equal(again.body.param, 'orderId')
    assert.deepEqual(await storedCounts(), before)
    const other = await f.createMerchant()
    assert.equal((await f.createCharge(other, { orderId: first.orderId })).orderId, first.orderId)
  })

  test('Idempotency-Key: the same key and body return the same charge (with a fresh token), another body is 422', async () => {
    const body = validBody()
    const headers = { 'idempotency-key': `key-${body.orderId}` }
    const first = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body, headers })
    assert.equal(first.status, 201)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    const before = await storedCounts()
    // The same body, its keys in another order and spaced differently: the same request.
    const reordered = `{ "orderId": ${JSON.stringify(body.orderId)}, "currency": "${body.currency}", "beneficiary": "${body.beneficiary}", "token": "${body.token}", "amount": "${body.amount}" }`
    const replay = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body: reordered, headers })
    assert.equal(replay.status, 201)
    assert.equal(replay.headers.get('idempotent-replayed'), 'true')
    assert.equal(replay.body.id, first.body.id)
    assert.deepEqual({ ...replay.body, ephemeralToken: null }, { ...first.body, ephemeralToken: null })
    assert.notEqual(replay.body.ephemeralToken, first.body.ephemeralToken)
    assert.deepEqual(await storedCounts(), before)

    const conflict = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body: { ...body, amount: '1' }, headers })
    assertProblem(conflict, 422, 'Idempotency-Key', /another request body/)
    assert.deepEqual(await storedCounts(), before)
  })

  test('concurrent requests with one Idempotency-Key create one charge', async () => {
    const body = validBody()
    const headers = { 'idempotency-key': `race-${body.orderId}` }
    const answers = await Promise.all(Array.from({ length: 6 }, () => f.request(merchant.credentials, 'POST', '/api/v1/charges', { body, headers })))
    assert.deepEqual(answers.map((a) => a.status), Array(6).fill(201))
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1)
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === null).length, 1)
  })
})

describe('refused creations store nothing', () => {
  const cases: [string, () => { body: unknown; headers?: Record<string, string> }, number, string | undefined, RegExp][] = [
    ['malformed JSON', () => ({ body: '{"amount": "1",' }), 400, undefined, /not valid JSON/],
    ['a JSON array', () => ({ body: [validBody()] }), 400, undefined, /must be a JSON object/],
    ['an empty body', () => ({ body: '' , headers: { 'content-type': 'application/json' } }), 400, undefined, /must be a JSON object/],
    ['amount as a number', () => ({ body: { ...validBody(), amount: 25000000 } }), 400, 'amount', /field "amount" must be a positive integer/],
    ['orderId as a number', () => ({ body: { ...validBody(), orderId: 7 } }), 400, 'orderId', /orderId/],
    ['an unknown field', () => ({ body: { ...validBody(), note: 'x' } }), 400, 'note', /unknown field "note"/],
    ['a missing field', () => ({ body: { ...validBody(), currency: undefined } }), 400, 'currency', /"currency" is required/],
    ['a decimal amount', () => ({ body: { ...validBody(), amount: '1.5' } }), 400, 'amount', /positive integer/],
    ['a negative amount', () => ({ body: { ...validBody(), amount: '-1' } }), 400, 'amount', /positive integer/],
    ['a zero amount', () => ({ body: { ...validBody(), amount: '0' } }), 400, 'amount', /positive integer/],
    ['a leading zero', () => ({ body: { ...validBody(), amount: '0100' } }), 400, 'amount', /leading zeros/],
    ['an amount beyond uint256', () => ({ body: { ...validBody(), amount: '9'.repeat(78) } }), 400, 'amount', /amount/],
    ['a malformed token', () => ({ body: { ...validBody(), token: '0x1234' } }), 400, 'token', /token address/],
    ['an unsupported token', () => ({ body: { ...validBody(), token: '0x000000000000000000000000000000000000dEaD' } }), 400, 'token', /not supported/],
    ['a currency other than the token symbol', () => ({ body: { ...validBody(), currency: 'EUR' } }), 400, 'currency', /must be "/],
    ['the zero beneficiary', () => ({ body: { ...validBody(), beneficiary: `0x${'0'.repeat(40)}` } }), 400, 'beneficiary', /zero address/],
    ['a control character in orderId', () => ({ body: { ...validBody(), orderId: 'a\nb' } }), 400, 'orderId', /control characters/],
    ['a bad Idempotency-Key', () => ({ body: validBody(), headers: { 'idempotency-key': 'x'.repeat(256) } }), 400, 'Idempotency-Key', /header "Idempotency-Key"/],
    ['a body over 16 KiB', () => ({ body: { ...validBody(), orderId: 'x'.repeat(17_000) } }), 413, undefined, /16384 bytes/],
    ['text/plain', () => ({ body: JSON.stringify(validBody()), headers: { 'content-type': 'text/plain' } }), 415, undefined, /application\/json/],
    ['form encoding', () => ({ body: 'amount=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, undefined, /application\/json/],
  ]
  for (const [name, build, status, param, detail] of cases) {
    test(`${name} → ${status}`, async () => {
      const before = await storedCounts()
      assertProblem(await f.request(merchant.credentials, 'POST', '/api/v1/charges', build()), status, param, detail)
      assert.deepEqual(await storedCounts(), before)
    })
  }
})

describe('an outage is not the merchant’s fault', () => {
  test('the node failing the fee lookup → 503 with Retry-After: 5, not 400 "amount beyond…"; the same request succeeds once it answers', async () => {
    const node = await startRpcProxy(f.chain.rpcUrl)
    const engine = await f.startCheckout({ RPC_URL: node.url })
    try {
      const body = validBody()
      const before = await storedCounts()
      node.refuse = (request) => request.method === 'eth_call'
      const refused = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, engine)
      assertProblem(refused, 503, undefined, /did not answer the fee lookup/)
      assert.equal(refused.headers.get('retry-after'), '5', 'a 503 says when to retry')
      node.refuse = undefined
      node.down = true
      const down = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, engine)
      assertProblem(down, 503, undefined, /did not answer the fee lookup/)
      assert.equal(down.headers.get('retry-after'), '5')
      assert.deepEqual(await storedCounts(), before)
      node.down = false
      assert.equal((await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body }, engine)).status, 201)
    } finally {
      await engine.stop()
      await node.stop()
    }
  })
})

describe('reading charges', () => {
  test('GET /api/v1/charges/:id: the charge without a payment-page token; unknown 404, malformed 400', async () => {
    const created = await f.createCharge(merchant)
    const answer = await f.request(merchant.credentials, 'GET', `/api/v1/charges/${created.id}`)
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.body, { ...created, ephemeralToken: null })
    assertProblem(await f.request(merchant.credentials, 'GET', `/api/v1/charges/ch_${'0'.repeat(24)}`), 404)
    assertProblem(await f.request(merchant.credentials, 'GET', '/api/v1/charges/nope'), 400, 'id', /charge id/)
    assert.deepEqual((await f.request(merchant.credentials, 'GET', `/api/v1/charges/${created.id}/payments`)).body, { payments: [] })
  })

  test('GET /api/v1/charges pages newest first by keyset cursor, filters by status', async () => {
    const lister = await f.createMerchant()
    const created = []
    for (let i = 0; i < 5; i++) created.push(await f.createCharge(lister))
    await f.request(lister.credentials, 'POST', `/api/v1/charges/${created[1]!.id}/cancel`)
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const answer = await f.request(lister.credentials, 'GET', `/api/v1/charges?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(answer.status, 200)
      seen.push(...answer.body.charges.map((c: { id: string }) => c.id))
      cursor = answer.body.nextCursor
      pages++
      // A charge created while paging never shifts the pages.
      if (pages === 1) await f.createCharge(lister)
    } while (cursor)
    assert.deepEqual(seen, created.map((c) => c.id).reverse())
    assert.equal(pages, 3)
    const canceled = await f.request(lister.credentials, 'GET', '/api/v1/charges?status=canceled')
    assert.deepEqual(canceled.body.charges.map((c: { id: string }) => c.id), [created[1]!.id])
    assert.equal(canceled.body.nextCursor, null)
  })

  for (const [query, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=ten', 'limit'], ['status=paid', 'status'], ['cursor=abc', 'cursor'], ['sort=asc', 'sort']] as const) {
    test(`GET /api/v1/charges?${query} → 400 naming ${param}`, async () => {
      assertProblem(await f.request(merchant.credentials, 'GET', `/api/v1/charges?${query}`), 400, param)
    })
  }

  test('an unknown route → 404 problem', async () => {
    assertProblem(await f.request(merchant.credentials, 'GET', '/api/v1/nothing'), 404, undefined, /no route GET \/api\/v1\/nothing/)
  })
})

describe('POST /api/v1/charges/:id/cancel', () => {
  test('cancels a charge awaiting payment (charge.canceled), then 409; a body is refused', async () => {
    const charge = await f.createCharge(merchant)
    assertProblem(await f.request(merchant.credentials, 'POST', `/api/v1/charges/${charge.id}/cancel`, { body: { reason: 'x' } }), 400)
    const canceled = await f.request(merchant.credentials, 'POST', `/api/v1/charges/${charge.id}/cancel`, { body: {} })
    assert.equal(canceled.status, 200)
    assert.equal(canceled.body.status, 'canceled')
    assert.deepEqual(await f.webhookTypes(charge.id), ['charge.canceled'])
    const { rows } = await f.db.pool.query(`SELECT payload FROM webhook_events WHERE charge_id = $1`, [charge.id])
    assert.deepEqual((typeof rows[0].payload === 'string' ? JSON.parse(rows[0].payload) : rows[0].payload).data, canceled.body)
    const again = await f.request(merchant.credentials, 'POST', `/api/v1/charges/${charge.id}/cancel`)
    assertProblem(again, 409, undefined, /is canceled; only a charge awaiting payment/)
    assert.deepEqual(await f.webhookTypes(charge.id), ['charge.canceled'])

    // The webhook-deliveries routes sit behind the same certificate authentication.
    const deliveries = await f.request(merchant.credentials, 'GET', `/api/v1/webhook-deliveries?chargeId=${charge.id}&limit=5`)
    assert.equal(deliveries.status, 200)
    assert.deepEqual(deliveries.body.deliveries.map((d: { type: string }) => d.type), ['charge.canceled'])
    const stranger = await f.createMerchant()
    assert.deepEqual((await f.request(stranger.credentials, 'GET', `/api/v1/webhook-deliveries?chargeId=${charge.id}`)).body.deliveries, [])
  })
})
