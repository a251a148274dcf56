/**
 * Amount range filters (issue 17) on a real explorer indexing a real anvil chain: `minAmount` and
 * `maxAmount` on `GET /events` alone and with every other filter, both orders, every page, totals exact,
 * all compared with settlements computed from the chain's own logs; the same bounds on SSE, on the
 * WebSocket through the SDK's `onSettlement`, and through the SDK's `getEvents`; and every bad value
 * refused with a 400 problem (an ERROR message on the WebSocket) naming its parameter.
 *
 * The planner (src/explorer/query/amount-query.ts) answers a range by walking in chain order, merging the
 * amount classes it touches, or listing the amount index, each with or without block bounds, and other
 * field filters by intersecting: each way counts the total its own way. At 60 spread settlements it never
 * merged nor listed within bounds, so a broken count there passed; a crowd of settlements in one amount
 * class makes merging the cheapest, and a test checks that the cases below take every path.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseEventsQuery } from '../../src/explorer/api/rest/parse-query.js'
import { amountPlan, usesAmountIndex } from '../../src/explorer/query/amount-query.js'
import { keyRange } from '../../src/explorer/query/block-range.js'
import { fieldFilters } from '../../src/explorer/query/field-index.js'
import { ExplorerApiError, ExplorerClient, type Settlement } from '../../src/sdk/index.js'
import { key, pageThrough, settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { connectWs, openSse, subscribe } from '../live/live-client.js'

let chain: LocalChain
let explorer: TestExplorer
let onChain: Settlement[]
/** Amounts on chain, ascending, for thresholds at chosen quantiles. */
let amounts: bigint[]

/** The crowd's amounts, lowest and highest. */
let crowd: { min: string; max: string }

/** Distinct principals from 1 to 50 token units (6 decimals), in a scrambled order. */
const principal = (i: number) => 1_000_000n * BigInt(1 + ((i * 37) % 50)) + BigInt(i)
const SPREAD = 60
/**
 * 40 more, all within one amount class (1/64 of a power of two: [2^24, 2^24 + 2^18)), half of each
 * token: few classes holding many of a token's settlements is where merging them beats walking the token.
 */
const CROWD = 40
const crowdPrincipal = (i: number) => 2n ** 24n + 1_000n * BigInt(i)

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, SPREAD, { principal })
  await sendSettlements(chain, CROWD, { principal: crowdPrincipal })
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
  onChain = await settlementsOnChain(chain)
  amounts = onChain.map((e) => BigInt(e.amount)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const crowded = new Set(Array.from({ length: CROWD }, (_, i) => crowdPrincipal(i).toString()))
  const inCrowd = onChain.filter((e) => crowded.has(e.amount)).map((e) => BigInt(e.amount))
  assert.equal(inCrowd.length, CROWD)
  crowd = { min: String(inCrowd.reduce((a, b) => (a < b ? a : b))), max: String(inCrowd.reduce((a, b) => (a > b ? a : b))) }
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

type Query = Record<string, string>
const quantile = (q: number) => amounts[Math.floor(q * (amounts.length - 1))]!.toString()

function matches(e: Settlement, query: Query): boolean {
  const fields = ['token', 'recipient', 'payer', 'acquirerId'] as const
  const address = query.address?.toLowerCase()
  return (
    fields.every((f) => query[f] === undefined || e[f] === query[f]!.toLowerCase()) &&
    (address === undefined || e.payer === address || e.recipient === address) &&
    (query.fromBlock === undefined || e.blockNumber >= Number(query.fromBlock)) &&
    (query.toBlock === undefined || e.blockNumber <= Number(query.toBlock)) &&
    (query.fromTimestamp === undefined || e.timestamp >= Number(query.fromTimestamp)) &&
    (query.toTimestamp === undefined || e.timestamp <= Number(query.toTimestamp)) &&
    (query.minAmount === undefined || BigInt(e.amount) >= BigInt(query.minAmount)) &&
    (query.maxAmount === undefined || BigInt(e.amount) <= BigInt(query.maxAmount))
  )
}

function expected(query: Query): Settlement[] {
  const found = onChain.filter((e) => matches(e, query))
  return query.order === 'asc' ? found : found.reverse()
}

describe('GET /events with amount bounds', () => {
  const queries: [string, () => Query][] = [
    ['minAmount alone', () => ({ minAmount: quantile(0.5) })],
    ['maxAmount alone', () => ({ maxAmount: quantile(0.3) })],
    ['a narrow range', () => ({ minAmount: quantile(0.4), maxAmount: quantile(0.45) })],
    ['one exact amount', () => ({ minAmount: onChain[17]!.amount, maxAmount: onChain[17]!.amount })],
    ['a range holding nothing', () => ({ minAmount: '1', maxAmount: String(amounts[0]! - 1n) })],
    ['token + range (1 %…99 %)', () => ({ token: chain.deployment.tokens[0]!.address, minAmount: quantile(0.01), maxAmount: quantile(0.99) })],
    ['token + narrow range', () => ({ token: chain.deployment.tokens[1]!.address, minAmount: quantile(0.2), maxAmount: quantile(0.35) })],
    ['recipient + minAmount', () => ({ recipient: chain.deployment.recipients[0]!, minAmount: quantile(0.3) })],
    ['payer + maxAmount', () => ({ payer: onChain[3]!.payer, maxAmount: quantile(0.8) })],
    ['address + range', () => ({ address: onChain[5]!.payer, minAmount: quantile(0.1), maxAmount: quantile(0.9) })],
    ['acquirerId + minAmount', () => ({ acquirerId: chain.deployment.acquirers[0]!.id, minAmount: quantile(0.2) })],
    ['block range + range', () => ({ fromBlock: String(onChain[10]!.blockNumber), toBlock: String(onChain[45]!.blockNumber), minAmount: quantile(0.25), maxAmount: quantile(0.75) })],
    ['timestamp range + token + minAmount', () => ({ fromTimestamp: String(onChain[5]!.timestamp), toTimestamp: String(onChain[50]!.timestamp), token: chain.deployment.tokens[0]!.address, minAmount: quantile(0.5) })],
    ['token + recipient + range', () => ({ token: chain.deployment.tokens[0]!.address, recipient: chain.deployment.recipients[1]!, minAmount: quantile(0.1), maxAmount: quantile(0.9) })],
    ['leading zeros', () => ({ minAmount: `000${quantile(0.6)}` })],
    ['token + the crowded class', () => ({ token: chain.deployment.tokens[0]!.address, minAmount: crowd.min, maxAmount: crowd.max })],
    ['token + part of the crowded class', () => ({ token: chain.deployment.tokens[1]!.address, minAmount: crowd.min, maxAmount: String(BigInt(crowd.max) - 5_000n) })],
    ['block range + token + the crowded class', () => ({ fromBlock: String(onChain[2]!.blockNumber), toBlock: String(onChain.at(-3)!.blockNumber), token: chain.deployment.tokens[0]!.address, minAmount: crowd.min, maxAmount: crowd.max })],
    ['block range + one exact amount', () => ({ fromBlock: String(onChain[1]!.blockNumber), minAmount: onChain[20]!.amount, maxAmount: onChain[20]!.amount })],
    ['timestamp range + token + a narrow range', () => ({ toTimestamp: String(onChain.at(-2)!.timestamp), token: chain.deployment.tokens[1]!.address, minAmount: quantile(0.4), maxAmount: quantile(0.45) })],
  ]
  for (const [name, query] of queries) {
    for (const order of ['desc', 'asc']) {
      test(`${name}, ${order}: every page equals the chain's logs, total exact`, async () => {
        const q = { ...query(), order, limit: '7' }
        const want = expected(q)
        if (name !== 'a range holding nothing') assert.ok(want.length > 0, 'the case matches something')
        const got = await pageThrough(explorer.url, q)
        assert.deepEqual(got.events, want)
        for (const total of got.totals) assert.equal(total, want.length)
      })
    }
  }

  test('the cases above take every path of the planner: walk, merge and list, each with and without block bounds, and the intersection', () => {
    const taken = new Set<string>()
    for (const [, query] of queries) {
      const q = parseEventsQuery(new URLSearchParams({ ...query(), limit: '7' }).toString())
      const range = keyRange(explorer.store, q)
      if (!range) continue
      const filters = fieldFilters(q)
      taken.add(usesAmountIndex(filters) ? `${amountPlan(explorer.store, q, range, filters[0]).how}${range.bounded ? ' within bounds' : ''}` : 'intersection')
    }
    assert.deepEqual([...taken].sort(), ['intersection', 'list', 'list within bounds', 'merge', 'merge within bounds', 'walk', 'walk within bounds'])
  })
})

const BAD_AMOUNTS: [string, string][] = [
  ['negative', '-1'],
  ['a decimal point', '1.5'],
  ['hex', '0x10'],
  ['letters', 'ten'],
  ['an exponent', '1e6'],
  ['empty', ''],
  ['above 2^256 − 1', (2n ** 256n).toString()],
]

describe('bad amount bounds', () => {
  for (const path of ['/events', '/events/stream', '/events/export?format=csv&']) {
    test(`${path}: every bad value is a 400 problem naming its parameter`, async () => {
      const join = path.endsWith('&') ? '' : '?'
      for (const param of ['minAmount', 'maxAmount']) {
        for (const [what, value] of BAD_AMOUNTS) {
          const response = await fetch(`${explorer.url}${path}${join}${param}=${encodeURIComponent(value)}`)
          assert.equal(response.status, 400, `${param} ${what}`)
          assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
          const problem = (await response.json()) as { param: string; detail: string }
          assert.equal(problem.param, param, `${param} ${what}`)
        }
      }
      const inverted = await fetch(`${explorer.url}${path}${join}minAmount=10&maxAmount=9`)
      assert.equal(inverted.status, 400)
      assert.equal(((await inverted.json()) as { param: string }).param, 'minAmount')
    })
  }

  test('WebSocket SUBSCRIBE: a bad bound is an ERROR naming it, and the connection stays open', async () => {
    const ws = await connectWs(explorer.url)
    try {
      for (const [what, value] of BAD_AMOUNTS) {
        const answer = await subscribe(ws, { filter: { maxAmount: value } })
        assert.equal(answer.type, 'ERROR', what)
        assert.equal(answer.error!.code, 'INVALID_FILTER')
        assert.match(answer.error!.message, /maxAmount/)
      }
      const inverted = await subscribe(ws, { filter: { minAmount: '10', maxAmount: '9' } })
      assert.equal(inverted.type, 'ERROR')
      assert.match(inverted.error!.message, /minAmount/)
      assert.equal((await subscribe(ws, { filter: { minAmount: '1' } })).type, 'SUBSCRIBED')
    } finally {
      await ws.close()
    }
  })

  test('the SDK throws ExplorerApiError naming the bound', async () => {
    const client = new ExplorerClient({ baseUrl: explorer.url })
    await assert.rejects(client.getEvents({ minAmount: '1.5' }), (error: unknown) => error instanceof ExplorerApiError && error.problem.param === 'minAmount')
  })
})

describe('live feeds and the SDK with amount bounds', () => {
  test('SSE, WebSocket (SDK onSettlement, replay then live) and SDK getEvents deliver exactly the settlements in range', async () => {
    const token = chain.deployment.tokens[0]!.address.toLowerCase() as Settlement['token']
    const bounds = { minAmount: '10000000', maxAmount: '30000000' }
    const client = new ExplorerClient({ baseUrl: explorer.url })
    const fromSdk: Settlement[] = []
    const fromSdkToken: Settlement[] = []
    // Replays from the first settlement on chain, then goes live.
    const first = (await client.getEvents({ order: 'asc', limit: 1 })).nextCursor!
    client.onSettlement(bounds, (e) => void fromSdk.push(e), { since: first })
    client.onSettlement({ ...bounds, token }, (e) => void fromSdkToken.push(e), { since: first })
    await client.connect()
    const sse = await openSse(explorer.url, `?minAmount=${bounds.minAmount}&maxAmount=${bounds.maxAmount}`)
    try {
      const head = onChain.at(-1)!.blockNumber
      await sendSettlements(chain, 24, { principal: (i) => 5_000_000n * BigInt(1 + (i % 9)) + BigInt(i) })
      await waitForHead(chain, explorer.url)
      const all = await settlementsOnChain(chain)
      const inRange = (e: Settlement) => matches(e, bounds)
      const live = all.filter((e) => e.blockNumber > head && inRange(e))
      assert.ok(live.length > 0 && live.length < 24, 'some, not all, new settlements are in range')
      await waitFor('SSE frames', () => sse.settlements().length >= live.length)
      const sinceFirst = all.slice(1).filter(inRange)
      await waitFor('SDK deliveries', () => fromSdk.length >= sinceFirst.length && fromSdkToken.length >= sinceFirst.filter((e) => e.token === token).length)
      // No duplicate or stray delivery came before a last settlement in range (of `token`): feeds deliver in
      // chain order, so once it is in, anything sent before it is too.
      await sendSettlements(chain, 1, { principal: () => 20_000_000n })
      const last = (await settlementsOnChain(chain)).at(-1)!
      assert.ok(inRange(last) && last.token === token)
      const has = (events: Settlement[]) => events.some((e) => key(e) === key(last))
      await waitFor('the last settlement on every feed', () => has(sse.settlements()) && has(fromSdk) && has(fromSdkToken))
      assert.deepEqual(sse.settlements().map(key), [...live, last].map(key))
      assert.deepEqual(fromSdk.map(key), [...sinceFirst, last].map(key))
      assert.deepEqual(fromSdkToken, [...sinceFirst, last].filter((e) => e.token === token))
      const page = await client.getEvents({ ...bounds, token, order: 'asc', limit: 100 })
      assert.deepEqual(page.events, [...all, last].filter((e) => inRange(e) && e.token === token))
      assert.equal(page.total, page.events.length)
    } finally {
      sse.close()
      await client.disconnect()
    }
  })
})
