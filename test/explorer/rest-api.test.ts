/**
 * The REST API against a real explorer indexing a real anvil chain with real signed payments:
 * filters alone and combined (the `address` filter with each of the others, self-payments included),
 * both orders, keyset paging while settlements keep arriving, exact totals, lookups, stats against sums
 * computed from the chain's own logs, and every class of bad input.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Hex, Settlement } from '../../src/wire/settlement.js'
import { key, pageThrough, settlementsOnChain, startTestExplorer, waitForHead, type TestExplorer, payerAddress as payerAddressOf, paymentsBetweenPayers, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let explorer: TestExplorer
let onChain: Settlement[]

const payerAddress = (k: number) => payerAddressOf(chain, k)

before(async () => {
  chain = await startLocalChain()
  // Payer 0 (the `address` under test) pays itself once, pays recipients twice and is paid by payer 13 once.
  await sendSettlements(chain, 60, { recipient: paymentsBetweenPayers(chain) })
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
  onChain = await settlementsOnChain(chain)
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

type Query = Record<string, string>

function expected(query: Query): Settlement[] {
  const fields = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId'] as const
  const address = query.address?.toLowerCase()
  const matches = onChain.filter(
    (e) =>
      fields.every((f) => query[f] === undefined || e[f] === query[f]!.toLowerCase()) &&
      (address === undefined || e.payer === address || e.recipient === address) &&
      (query.fromBlock === undefined || e.blockNumber >= Number(query.fromBlock)) &&
      (query.toBlock === undefined || e.blockNumber <= Number(query.toBlock)) &&
      (query.fromTimestamp === undefined || e.timestamp >= Number(query.fromTimestamp)) &&
      (query.toTimestamp === undefined || e.timestamp <= Number(query.toTimestamp)),
  )
  return query.order === 'asc' ? matches : [...matches].reverse()
}

describe('GET /events', () => {
  test('an unfiltered page returns the newest settlements with every field equal to the chain logs', async () => {
    const { status, body, headers } = await explorer.get('/events')
    assert.equal(status, 200)
    assert.match(headers.get('content-type') ?? '', /^application\/json/)
    assert.equal(body.total, 60)
    assert.equal(body.events.length, 20)
    assert.deepEqual(body.events, expected({}).slice(0, 20))
    assert.equal(typeof body.nextCursor, 'string')
  })

  const queries: [string, () => Query][] = [
    ['token', () => ({ token: chain.deployment.tokens[1]!.address })],
    ['recipient', () => ({ recipient: chain.deployment.recipients[0]! })],
    ['payer (upper-case input)', () => ({ payer: `0x${onChain[7]!.payer.slice(2).toUpperCase()}` })],
    ['orderReference', () => ({ orderReference: onChain[11]!.orderReference })],
    ['acquirerId', () => ({ acquirerId: chain.deployment.acquirers[0]!.id })],
    ['zero acquirerId', () => ({ acquirerId: `0x${'0'.repeat(32)}` })],
    ['block range', () => ({ fromBlock: String(onChain[10]!.blockNumber), toBlock: String(onChain[40]!.blockNumber) })],
    ['timestamp range', () => ({ fromTimestamp: String(onChain[5]!.timestamp), toTimestamp: String(onChain[50]!.timestamp) })],
    ['token + recipient', () => ({ token: chain.deployment.tokens[0]!.address, recipient: chain.deployment.recipients[1]! })],
    ['recipient + acquirerId + fromBlock', () => ({ recipient: chain.deployment.recipients[2]!, acquirerId: chain.deployment.acquirers[0]!.id, fromBlock: String(onChain[3]!.blockNumber) })],
    ['payer + token + toTimestamp', () => ({ payer: onChain[4]!.payer, token: onChain[4]!.token, toTimestamp: String(onChain[59]!.timestamp) })],
    ['no match', () => ({ recipient: `0x${'12'.repeat(20)}` })],
  ]
  for (const [name, query] of queries) {
    for (const order of ['asc', 'desc']) {
      test(`${name}, ${order}: all pages equal the chain's matching settlements, total exact`, async () => {
        const q = { ...query(), order, limit: '7' }
        const want = expected(q)
        const got = await pageThrough(explorer.url, q)
        assert.deepEqual(got.events.map(key), want.map(key))
        assert.deepEqual(got.events, want)
        for (const total of got.totals) assert.equal(total, want.length)
      })
    }
  }

  test('limit bounds: 1 and 100 are accepted; the default is 20', async () => {
    assert.equal((await explorer.get('/events?limit=1')).body.events.length, 1)
    assert.equal((await explorer.get('/events?limit=100')).body.events.length, 60)
    assert.equal((await explorer.get('/events?limit=100')).body.nextCursor, null)
  })

  test('paging while new settlements arrive: no duplicate, no gap, in both orders', async () => {
    const sending = sendSettlements(chain, 30)
    const [desc, asc] = await Promise.all([pageThrough(explorer.url, { limit: '3' }), pageThrough(explorer.url, { order: 'asc', limit: '3' })])
    await sending
    await waitForHead(chain, explorer.url)
    onChain = await settlementsOnChain(chain)
    const all = onChain.map(key)
    for (const got of [desc, asc]) assert.equal(new Set(got.events.map(key)).size, got.events.length, 'no duplicates')
    // Descending pages start from the newest settlement at the first request and never shift after it.
    const top = all.indexOf(key(desc.events[0]!))
    assert.deepEqual(desc.events.map(key), all.slice(0, top + 1).reverse())
    // Ascending pages run from the oldest to whatever was newest when the last page was read.
    assert.deepEqual(asc.events.map(key), all.slice(0, asc.events.length))
    assert.ok(asc.events.length >= 60)
  })
})

describe('GET /events?address', () => {
  const A = () => payerAddress(0)
  /** Payer 13 paid A (payment 33). */
  const B = () => payerAddress(13)
  const queries: [string, () => Query, 'some' | 'none'][] = [
    ['address alone (upper-case input)', () => ({ address: `0x${A().slice(2).toUpperCase()}` }), 'some'],
    ['address of a recipient only', () => ({ address: chain.deployment.recipients[1]! }), 'some'],
    ['address of a payer who paid A', () => ({ address: B() }), 'some'],
    ['address + token', () => ({ address: A(), token: chain.deployment.tokens[0]!.address }), 'some'],
    ['address + recipient (the same address): what A received', () => ({ address: A(), recipient: A() }), 'some'],
    ['address + recipient (another)', () => ({ address: A(), recipient: chain.deployment.recipients[0]! }), 'some'],
    ['address + payer (the same address): what A paid', () => ({ address: A(), payer: A() }), 'some'],
    ['address + payer (another): what B paid A', () => ({ address: A(), payer: B() }), 'some'],
    ['address + payer + recipient: A’s self-payments', () => ({ address: A(), payer: A(), recipient: A() }), 'some'],
    ['address + orderReference', () => ({ address: A(), orderReference: onChain.find((e) => e.recipient === A() && e.payer === B())!.orderReference }), 'some'],
    ['address + orderReference of a settlement not involving it', () => ({ address: A(), orderReference: onChain.find((e) => e.payer !== A() && e.recipient !== A())!.orderReference }), 'none'],
    ['address + acquirerId', () => ({ address: A(), acquirerId: chain.deployment.acquirers[0]!.id }), 'some'],
    ['address + zero acquirerId', () => ({ address: A(), acquirerId: `0x${'0'.repeat(32)}` }), 'some'],
    ['address + block range', () => ({ address: A(), fromBlock: String(onChain[1]!.blockNumber), toBlock: String(onChain[45]!.blockNumber) }), 'some'],
    ['address + timestamp range', () => ({ address: A(), fromTimestamp: String(onChain[2]!.timestamp), toTimestamp: String(onChain[50]!.timestamp) }), 'some'],
    ['address + token + toBlock', () => ({ address: B(), token: chain.deployment.tokens[1]!.address, toBlock: String(onChain[59]!.blockNumber) }), 'some'],
    ['unknown address', () => ({ address: `0x${'12'.repeat(20)}` }), 'none'],
  ]
  for (const [name, query, matches] of queries) {
    for (const order of ['asc', 'desc']) {
      test(`${name}, ${order}: all pages equal the chain's matching settlements, total exact`, async () => {
        const q = { ...query(), order, limit: '2' }
        const want = expected(q)
        assert.equal(want.length > 0, matches === 'some', 'the traffic must exercise this case')
        const got = await pageThrough(explorer.url, q)
        assert.deepEqual(got.events, want)
        for (const total of got.totals) assert.equal(total, want.length)
      })
    }
  }

  test('the traffic exercises every way an address matches', () => {
    const involving = expected({ address: A(), order: 'asc' })
    assert.ok(involving.some((e) => e.payer === A() && e.recipient === A()), 'a self-payment')
    assert.ok(involving.some((e) => e.payer === A() && e.recipient !== A()), 'a payment by A')
    assert.ok(involving.some((e) => e.payer === B() && e.recipient === A()), 'a payment to A')
  })

  test('a self-payment appears once and counts once', async () => {
    const { body } = await explorer.get(`/events?address=${A()}&limit=100`)
    const involving = onChain.filter((e) => e.payer === A() || e.recipient === A())
    assert.equal(body.total, involving.length)
    assert.deepEqual(body.events.map(key), involving.map(key).reverse())
    const selfPayments = body.events.filter((e: Settlement) => e.payer === A() && e.recipient === A())
    assert.equal(new Set(selfPayments.map(key)).size, selfPayments.length)
    assert.ok(selfPayments.length > 0)
  })

  test('a cursor from an unfiltered page continues the address query after that position, in both orders', async () => {
    const { body } = await explorer.get('/events?order=asc&limit=25')
    const at = body.events.at(-1) as Settlement
    for (const order of ['asc', 'desc']) {
      const q = { address: A(), order, limit: '2' }
      const later = (e: Settlement) => (order === 'asc' ? e.blockNumber > at.blockNumber || (e.blockNumber === at.blockNumber && e.logIndex > at.logIndex) : e.blockNumber < at.blockNumber || (e.blockNumber === at.blockNumber && e.logIndex < at.logIndex))
      const want = expected(q).filter(later)
      assert.ok(want.length > 0)
      const got = await pageThrough(explorer.url, { ...q, cursor: body.nextCursor })
      assert.deepEqual(got.events.map(key), want.map(key))
      for (const total of got.totals) assert.equal(total, expected(q).length, 'the total counts the whole query, not what follows the cursor')
    }
  })

  test('paging by address while settlements involving it arrive: no duplicate, no gap, in both orders', async () => {
    const sending = sendSettlements(chain, 24, { recipient: paymentsBetweenPayers(chain) })
    const q = { address: A(), limit: '1' }
    const [desc, asc] = await Promise.all([pageThrough(explorer.url, q), pageThrough(explorer.url, { ...q, order: 'asc' })])
    await sending
    await waitForHead(chain, explorer.url)
    onChain = await settlementsOnChain(chain)
    const all = expected({ address: A(), order: 'asc' }).map(key)
    for (const got of [desc, asc]) assert.equal(new Set(got.events.map(key)).size, got.events.length, 'no duplicates')
    const top = all.indexOf(key(desc.events[0]!))
    assert.deepEqual(desc.events.map(key), all.slice(0, top + 1).reverse())
    assert.deepEqual(asc.events.map(key), all.slice(0, asc.events.length))
    const { body } = await explorer.get(`/events?address=${A()}`)
    assert.equal(body.total, all.length)
  })
})

describe('lookups', () => {
  test('GET /events/:txHash finds the settlement (any hex case) and 404s otherwise', async () => {
    const target = onChain[13]!
    const hit = await explorer.get(`/events/${target.txHash.toUpperCase().replace('0X', '0x')}`)
    assert.equal(hit.status, 200)
    assert.deepEqual(hit.body, target)
    const miss = await explorer.get(`/events/0x${'ab'.repeat(32)}`)
    assert.equal(miss.status, 404)
    assert.match(miss.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(miss.body.status, 404)
  })

  test('GET /events/order/:orderReference finds the earliest settlement and 404s otherwise', async () => {
    const target = onChain[21]!
    const hit = await explorer.get(`/events/order/${target.orderReference}`)
    assert.equal(hit.status, 200)
    assert.deepEqual(hit.body, target)
    assert.equal((await explorer.get(`/events/order/0x${'cd'.repeat(16)}`)).status, 404)
  })
})

describe('GET /stats', () => {
  test('figures equal sums computed from the chain logs', async () => {
    await waitForHead(chain, explorer.url)
    onChain = await settlementsOnChain(chain)
    const { status, body } = await explorer.get('/stats')
    assert.equal(status, 200)
    const bySymbol = (pick: (e: Settlement) => string) => {
      const sums: Record<string, string> = {}
      for (const e of onChain) sums[e.tokenSymbol] = (BigInt(sums[e.tokenSymbol] ?? '0') + BigInt(pick(e))).toString()
      return sums
    }
    assert.equal(body.totalSettlements, onChain.length)
    assert.deepEqual(body.totalVolume, bySymbol((e) => e.amount))
    assert.deepEqual(body.totalFees, bySymbol((e) => e.fee))
    // Anvil's timestamps are the wall clock, so every settlement here is within the last 24 hours.
    assert.equal(body.last24h.settlements, onChain.length)
    assert.deepEqual(body.last24h.volume, bySymbol((e) => e.amount))
    for (const token of chain.deployment.tokens) {
      const mine = onChain.filter((e) => e.token === token.address.toLowerCase())
      const perToken = body.byToken[token.address.toLowerCase()]
      assert.equal(perToken.symbol, token.symbol)
      assert.equal(perToken.settlements, mine.length)
      assert.equal(perToken.volume, mine.reduce((sum, e) => sum + BigInt(e.amount), 0n).toString())
    }
  })
})

describe('service endpoints', () => {
  test('GET / describes the API and the indexed head', async () => {
    const { status, body } = await explorer.get('/')
    assert.equal(status, 200)
    assert.equal(body.chainId, 31337)
    assert.equal(body.contract, chain.deployment.settlementContract.toLowerCase())
    assert.ok(body.endpoints.includes('GET /events'))
    assert.equal(typeof body.indexedHead.blockNumber, 'number')
  })

  test('health, ready and metrics', async () => {
    assert.deepEqual((await explorer.get('/health')).body, { status: 'ok' })
    const ready = await explorer.get('/ready')
    assert.equal(ready.status, 200)
    assert.equal(ready.body.lag, 0)
    const metrics = await fetch(`${explorer.url}/metrics`)
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/)
    const text = await metrics.text()
    assert.match(text, /^explorer_settlements_indexed_total \d+$/m)
    assert.match(text, /^explorer_http_requests_total\{route="\/events",status="200"\} \d+$/m)
  })
})

describe('HTTP behaviour', () => {
  test('pipelined requests on one connection are all answered, in order', async () => {
    const paths = ['/events?limit=1', `/events?limit=2&recipient=${chain.deployment.recipients[0]}`, `/events/${onChain[0]!.txHash}`, '/health']
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(explorer.port, '127.0.0.1', () => socket.end(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: test\r\n\r\n`).join('')))
      let data = ''
      socket.on('data', (chunk) => {
        data += chunk
        if ((data.match(/HTTP\/1\.1 /g) ?? []).length === paths.length && data.endsWith('{"status":"ok"}')) socket.destroy()
      })
      socket.on('close', () => resolve(data))
      socket.on('error', reject)
    })
    assert.equal((raw.match(/HTTP\/1\.1 200 OK/g) ?? []).length, paths.length)
    assert.ok(raw.indexOf(`"txHash":"${onChain[0]!.txHash}"`) < raw.indexOf('{"status":"ok"}'))
  })
})

describe('bad input', () => {
  const bad: [string, string, number, string | undefined][] = [
    ['unknown parameter', '/events?colour=red', 400, 'colour'],
    ['repeated parameter', '/events?limit=1&limit=2', 400, 'limit'],
    ['malformed address', '/events?recipient=0x1234', 400, 'recipient'],
    ['malformed address filter', '/events?address=0x1234', 400, 'address'],
    ['address filter with non-hex', `/events?address=0x${'g1'.repeat(20)}&token=${`0x${'ab'.repeat(20)}`}`, 400, 'address'],
    ['address filter given twice', `/events?address=0x${'ab'.repeat(20)}&address=0x${'cd'.repeat(20)}`, 400, 'address'],
    ['address with non-hex', `/events?token=0x${'zz'.repeat(20)}`, 400, 'token'],
    ['orderReference of the wrong length', `/events?orderReference=0x${'ab'.repeat(32)}`, 400, 'orderReference'],
    ['acquirerId not hex', '/events?acquirerId=hello', 400, 'acquirerId'],
    ['limit 0', '/events?limit=0', 400, 'limit'],
    ['limit 101', '/events?limit=101', 400, 'limit'],
    ['negative limit', '/events?limit=-5', 400, 'limit'],
    ['fractional limit', '/events?limit=2.5', 400, 'limit'],
    ['huge block', `/events?fromBlock=${'9'.repeat(40)}`, 400, 'fromBlock'],
    ['inverted block range', '/events?fromBlock=10&toBlock=5', 400, 'fromBlock'],
    ['bad order', '/events?order=sideways', 400, 'order'],
    ['forged cursor', '/events?cursor=AAAAAAAAAAAAAAAAAAAA', 400, 'cursor'],
    ['garbage cursor', '/events?cursor=%00%ff', 400, 'cursor'],
    ['malformed tx hash', '/events/0x1234', 400, 'txHash'],
    ['broken percent-encoding in the path', '/events/%E0%A4%A', 400, 'txHash'],
    ['malformed order reference path', '/events/order/xyz', 400, 'orderReference'],
    ['parameter on a lookup', `/events/0x${'ab'.repeat(32)}?limit=1`, 400, 'limit'],
    ['unknown route', '/nothing/here', 404, undefined],
  ]
  for (const [name, path, status, param] of bad) {
    test(`${name} → ${status} problem`, async () => {
      const response = await explorer.get(path)
      assert.equal(response.status, status)
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
      assert.equal(response.body.status, status)
      assert.equal(typeof response.body.title, 'string')
      assert.equal(typeof response.body.detail, 'string')
      assert.equal(response.body.param, param)
    })
  }

  test('a truncated or edited cursor is refused', async () => {
    const { body } = await explorer.get('/events?limit=1')
    const cursor: string = body.nextCursor
    for (const broken of [cursor.slice(0, -2), `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`, `${cursor}AA`]) {
      const response = await explorer.get(`/events?cursor=${broken}`)
      assert.equal(response.status, 400, broken)
      assert.equal(response.body.param, 'cursor')
    }
  })

  test('other methods get 405 with Allow: GET', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${explorer.url}/events`, { method, body: method === 'DELETE' ? undefined : '{}' })
      assert.equal(response.status, 405)
      assert.equal(response.headers.get('allow'), 'GET')
      assert.equal(((await response.json()) as { status: number }).status, 405)
    }
  })

  test('an over-long request target is refused (414) without harming the server', async () => {
    const response = await explorer.get(`/events?recipient=${'a'.repeat(9_000)}`)
    assert.equal(response.status, 414)
    assert.equal(response.body.status, 414)
    // Far past the limit uWS may drop the connection before routing; either way the server stays up.
    const huge = await fetch(`${explorer.url}/events?recipient=${'a'.repeat(200_000)}`).catch(() => undefined)
    if (huge) assert.ok([414, 431].includes(huge.status), `status ${huge.status}`)
    assert.equal((await explorer.get('/health')).status, 200)
  })

  test('a client that goes away mid-request does not harm the server', async () => {
    const controller = new AbortController()
    const requests = Array.from({ length: 50 }, () => fetch(`${explorer.url}/events?limit=100`, { signal: controller.signal }).catch(() => undefined))
    controller.abort()
    await Promise.all(requests)
    assert.equal((await explorer.get('/events?limit=1')).status, 200)
  })
})
