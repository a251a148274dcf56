/**
 * The SDK's REST half against a real explorer on anvil: every method, the typed error on 400 and 404,
 * `null` lookups, and `iterateEvents` across many pages compared with the chain's own logs.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ExplorerApiError, ExplorerClient, ExplorerNetworkError, type Hex, type Settlement } from '../../src/sdk/index.js'
import { key, settlementsOnChain, startTestExplorer, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { expectedSeries, expectedStats } from '../helpers/expected-stats.js'

let chain: LocalChain
let explorer: TestExplorer
let client: ExplorerClient
let onChain: Settlement[]

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 45)
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
  onChain = await settlementsOnChain(chain)
  client = new ExplorerClient({ baseUrl: explorer.url })
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

const newestFirst = () => [...onChain].reverse()

describe('ExplorerClient REST', () => {
  test('getEvents returns the list envelope, newest first by default', async () => {
    const page = await client.getEvents()
    assert.equal(page.total, 45)
    assert.deepEqual(page.events, newestFirst().slice(0, 20))
    assert.equal(typeof page.nextCursor, 'string')
  })

  test('getEvents passes filters, order, limit and cursor through', async () => {
    const recipient = chain.deployment.recipients[1]!
    const mine = onChain.filter((e) => e.recipient === recipient.toLowerCase())
    const first = await client.getEvents({ recipient: recipient.toUpperCase().replace('0X', '0x') as Hex, order: 'asc', limit: 3 })
    assert.equal(first.total, mine.length)
    assert.deepEqual(first.events, mine.slice(0, 3))
    const second = await client.getEvents({ recipient, order: 'asc', limit: 3, cursor: first.nextCursor! })
    assert.deepEqual(second.events, mine.slice(3, 6))

    const token = chain.deployment.tokens[0]!.address
    const middle = onChain[20]!
    const ranged = await client.getEvents({ token, fromBlock: middle.blockNumber, toTimestamp: middle.timestamp + 3600, order: 'asc', limit: 100 })
    assert.deepEqual(
      ranged.events,
      onChain.filter((e) => e.token === token.toLowerCase() && e.blockNumber >= middle.blockNumber),
    )
  })

  test('iterateEvents walks every page exactly once, in both orders', async () => {
    const seen: Settlement[] = []
    for await (const event of client.iterateEvents({ limit: 4 })) seen.push(event)
    assert.equal(seen.length, 45)
    assert.deepEqual(seen, newestFirst())

    const ascending: Settlement[] = []
    for await (const event of client.iterateEvents({ order: 'asc', limit: 7 })) ascending.push(event)
    assert.deepEqual(ascending.map(key), onChain.map(key))
  })

  test('getEvents and iterateEvents take the address filter (payer or recipient)', async () => {
    for (const address of [onChain[2]!.payer, onChain[2]!.recipient]) {
      const involving = onChain.filter((e) => e.payer === address || e.recipient === address)
      const page = await client.getEvents({ address, order: 'asc', limit: 2 })
      assert.equal(page.total, involving.length)
      const seen: Settlement[] = []
      for await (const event of client.iterateEvents({ address, order: 'asc', limit: 2 })) seen.push(event)
      assert.deepEqual(seen, involving)
    }
  })

  test('iterateEvents of a query matching nothing yields nothing', async () => {
    const none: Settlement[] = []
    for await (const event of client.iterateEvents({ orderReference: `0x${'ab'.repeat(16)}` })) none.push(event)
    assert.deepEqual(none, [])
  })

  test('getEventByTxHash finds the settlement, and resolves null for an unknown hash', async () => {
    const target = onChain[9]!
    assert.deepEqual(await client.getEventByTxHash(target.txHash.toUpperCase().replace('0X', '0x') as Hex), target)
    assert.equal(await client.getEventByTxHash(`0x${'00'.repeat(32)}`), null)
  })

  test('getEventByOrderReference finds the settlement, and resolves null for an unknown reference', async () => {
    const target = onChain[30]!
    assert.deepEqual(await client.getEventByOrderReference(target.orderReference), target)
    assert.equal(await client.getEventByOrderReference(`0x${'ff'.repeat(16)}`), null)
  })

  test('getStats agrees with the chain', async () => {
    const stats = await client.getStats()
    assert.equal(stats.totalSettlements, 45)
    for (const token of chain.deployment.tokens) {
      const volume = onChain.filter((e) => e.token === token.address.toLowerCase()).reduce((sum, e) => sum + BigInt(e.amount), 0n)
      assert.equal(stats.byToken[token.address.toLowerCase() as Hex]?.volume, volume.toString())
    }
  })

  test('getStats(filter) and getSeries(query) agree with the chain; a bad one is an ExplorerApiError naming its parameter', async () => {
    const recipient = onChain[3]!.recipient
    const filter = { recipient, token: onChain[3]!.token, minAmount: '1', fromTimestamp: onChain[0]!.timestamp }
    const asText = { recipient, token: onChain[3]!.token, minAmount: '1', fromTimestamp: String(onChain[0]!.timestamp) }
    assert.deepEqual(await client.getStats(filter), expectedStats(onChain, asText))
    const range = { fromTimestamp: onChain[0]!.timestamp - 3600, toTimestamp: onChain.at(-1)!.timestamp }
    const series = await client.getSeries({ interval: 'hour', ...range, recipient })
    assert.deepEqual(series, expectedSeries(onChain, { interval: 'hour', fromTimestamp: String(range.fromTimestamp), toTimestamp: String(range.toTimestamp), recipient }))
    assert.equal(series.buckets.reduce((n, b) => n + b.settlements, 0), onChain.filter((e) => e.recipient === recipient).length)
    await assert.rejects(client.getSeries({ interval: 'hour', fromTimestamp: 0, toTimestamp: 3600 * 5000 }), (e: unknown) => e instanceof ExplorerApiError && e.status === 400 && e.param === 'toTimestamp')
    await assert.rejects(client.getStats({ maxAmount: '-5' }), (e: unknown) => e instanceof ExplorerApiError && e.param === 'maxAmount')
  })

  test('a 400 becomes an ExplorerApiError carrying the problem body, status and parameter', async () => {
    await assert.rejects(client.getEvents({ limit: 1000 }), (error: unknown) => {
      assert.ok(error instanceof ExplorerApiError)
      assert.equal(error.status, 400)
      assert.equal(error.param, 'limit')
      assert.equal(error.problem.status, 400)
      assert.equal(error.problem.title, 'Bad Request')
      assert.match(error.problem.detail, /limit/)
      assert.match(error.url, /\/events\?limit=1000$/)
      return true
    })
    await assert.rejects(client.getEvents({ cursor: 'not-a-cursor' }), (e: unknown) => e instanceof ExplorerApiError && e.param === 'cursor')
    await assert.rejects(client.getEventByTxHash('0x1234'), (e: unknown) => e instanceof ExplorerApiError && e.status === 400 && e.param === 'txHash')
  })

  test('a 404 that is not a lookup becomes an ExplorerApiError', async () => {
    const wrongPath = new ExplorerClient({ baseUrl: `${explorer.url}/no-such-prefix` })
    await assert.rejects(wrongPath.getStats(), (error: unknown) => {
      assert.ok(error instanceof ExplorerApiError)
      assert.equal(error.status, 404)
      assert.equal(error.problem.type.endsWith('not-found'), true)
      return true
    })
  })

  test('a refused connection becomes an ExplorerNetworkError with the cause', async () => {
    const nowhere = new ExplorerClient({ baseUrl: 'http://127.0.0.1:1' })
    await assert.rejects(nowhere.getStats(), (error: unknown) => error instanceof ExplorerNetworkError && error.cause !== undefined)
  })

  test('a caller abort signal aborts the request with its reason', async () => {
    const controller = new AbortController()
    const reason = new Error('caller gave up')
    controller.abort(reason)
    await assert.rejects(client.getStats({}, { signal: controller.signal }), (error: unknown) => error === reason)
  })
})
