/**
 * Filtered `/stats` and `/stats/series` against a real explorer on a real anvil chain whose settlements
 * span a day and several hours (evm_increaseTime between rounds of real signed payments): every filter
 * alone and combined equals sums over the chain's own logs, bucket edges cut through hours included;
 * series buckets add up to the filtered stats; a reorg (evm_snapshot / evm_revert) changes both exactly
 * as it changes the settlements; every bad input is a 400 problem naming its parameter.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Hex, Settlement } from '../../src/wire/settlement.js'
import { settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, chainRpc, payerAddress, paymentsBetweenPayers, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { expectedSeries, expectedStats, type StatsQuery } from '../helpers/expected-stats.js'

let chain: LocalChain
let explorer: TestExplorer
let onChain: Settlement[]

const rpc = <T>(method: string, params: unknown[] = []) => chainRpc<T>(chain.rpcUrl, method, params)

/** Rounds of payments with the chain's clock moved on between them: across hours and a day. */
async function sendRounds(rounds: [count: number, advanceSeconds: number][]): Promise<void> {
  for (const [count, advance] of rounds) {
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 30 * 86_400)
    await sendSettlements(chain, count, { recipient: paymentsBetweenPayers(chain), principal: (i) => 1_000_000n * BigInt(1 + ((i * 7) % 40)), deadline })
    await rpc('evm_increaseTime', [advance])
  }
}

const path = (route: string, q: StatsQuery) => `${route}?${new URLSearchParams(q)}`

before(async () => {
  chain = await startLocalChain()
  await sendRounds([[14, 5_000], [14, 90_000], [14, 3_700], [12, 0]])
  explorer = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })
  await waitForHead(chain, explorer.url)
  onChain = await settlementsOnChain(chain)
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

const A = () => payerAddress(chain, 0)
const ts = (i: number) => String(onChain[i]!.timestamp)
const hourStart = (i: number) => String(Math.floor(onChain[i]!.timestamp / 3600) * 3600)
const median = () => [...onChain].map((e) => BigInt(e.amount)).sort((a, b) => (a < b ? -1 : 1))[onChain.length >> 1]!.toString()

const queries: [string, () => StatsQuery][] = [
  ['token', () => ({ token: chain.deployment.tokens[1]!.address })],
  ['recipient', () => ({ recipient: chain.deployment.recipients[0]! })],
  ['payer (upper-case input)', () => ({ payer: `0x${onChain[7]!.payer.slice(2).toUpperCase()}` })],
  ['address (self-payments once)', () => ({ address: A() })],
  ['acquirerId', () => ({ acquirerId: chain.deployment.acquirers[0]!.id })],
  ['zero acquirerId', () => ({ acquirerId: `0x${'0'.repeat(32)}` })],
  ['block range', () => ({ fromBlock: String(onChain[10]!.blockNumber), toBlock: String(onChain[40]!.blockNumber) })],
  ['timestamp range cutting through hours', () => ({ fromTimestamp: ts(5), toTimestamp: ts(50) })],
  ['timestamp range aligned to hours', () => ({ fromTimestamp: hourStart(20), toTimestamp: String(Number(hourStart(45)) - 1) })],
  ['recipient + token + timestamps', () => ({ recipient: chain.deployment.recipients[1]!, token: chain.deployment.tokens[0]!.address, fromTimestamp: ts(3), toTimestamp: ts(48) })],
  ['address + fromBlock', () => ({ address: A(), fromBlock: String(onChain[12]!.blockNumber) })],
  ['payer + toBlock + fromTimestamp', () => ({ payer: onChain[4]!.payer, toBlock: String(onChain[44]!.blockNumber), fromTimestamp: ts(2) })],
  ['acquirerId + token', () => ({ acquirerId: chain.deployment.acquirers[0]!.id, token: chain.deployment.tokens[0]!.address })],
  ['minAmount', () => ({ minAmount: median() })],
  ['maxAmount', () => ({ maxAmount: median() })],
  ['minAmount + maxAmount + token', () => ({ minAmount: '5000000', maxAmount: median(), token: chain.deployment.tokens[0]!.address })],
  ['address + minAmount (leading zeros)', () => ({ address: A(), minAmount: `000${median()}` })],
  ['recipient + payer', () => ({ recipient: A(), payer: A() })],
  ['recipient + acquirerId + timestamps', () => ({ recipient: chain.deployment.recipients[2]!, acquirerId: `0x${'0'.repeat(32)}`, fromTimestamp: ts(1), toTimestamp: ts(52) })],
  ['no match', () => ({ recipient: `0x${'12'.repeat(20)}` })],
]

async function checkStats(q: StatsQuery): Promise<void> {
  const { status, body } = await explorer.get(path('/stats', q))
  assert.equal(status, 200)
  assert.deepEqual(body, expectedStats(onChain, q))
}

async function checkSeries(q: StatsQuery): Promise<void> {
  const { status, body } = await explorer.get(path('/stats/series', q))
  assert.equal(status, 200, JSON.stringify(body))
  assert.deepEqual(body, expectedSeries(onChain, q))
}

/** Hour and day series over the whole chain, a little wider than it. */
const wholeRange = (q: StatsQuery, interval: string) => ({ ...q, interval, fromTimestamp: String(onChain[0]!.timestamp - 5_000), toTimestamp: String(onChain.at(-1)!.timestamp + 100) })

describe('filtered GET /stats', () => {
  test('the traffic spans a day and several hours', () => {
    const hours = new Set(onChain.map((e) => Math.floor(e.timestamp / 3600)))
    assert.ok(hours.size >= 4, `${hours.size} hours`)
    assert.ok(onChain.at(-1)!.timestamp - onChain[0]!.timestamp > 86_400)
    assert.ok(onChain.some((e) => e.payer === e.recipient && e.payer === A()), 'A pays itself')
  })

  test('without filters: the running totals, unchanged; a filter that matches everything gives the same figures', async () => {
    const plain = await explorer.get('/stats')
    assert.deepEqual(plain.body, expectedStats(onChain, {}))
    assert.deepEqual((await explorer.get('/stats?fromTimestamp=0')).body, plain.body)
    assert.deepEqual((await explorer.get('/stats?fromBlock=0&minAmount=0')).body, plain.body)
  })

  for (const [name, query] of queries) {
    test(`${name}: equals sums over the chain's logs; its hour and day series too`, async () => {
      const q = query()
      await checkStats(q)
      await checkSeries(wholeRange(q, 'hour'))
      await checkSeries(wholeRange(q, 'day'))
    })
  }
})

describe('GET /stats/series', () => {
  test('buckets are aligned to the UTC hour or day, ascending, empty ones with 0 and {}', async () => {
    const q = wholeRange({}, 'hour')
    const { body } = await explorer.get(path('/stats/series', q))
    const starts = body.buckets.map((b: { start: number }) => b.start)
    assert.ok(starts.every((s: number, i: number) => s % 3600 === 0 && (i === 0 || s === starts[i - 1] + 3600)))
    const empty = body.buckets.filter((b: { settlements: number }) => b.settlements === 0)
    assert.ok(empty.length > 10, 'the day without traffic gives empty hours')
    for (const b of empty) assert.deepEqual([b.volume, b.fees], [{}, {}])
    const days = (await explorer.get(path('/stats/series', wholeRange({}, 'day')))).body
    assert.ok(days.buckets.every((b: { start: number }) => b.start % 86_400 === 0))
  })

  test('first and last buckets count only what is inside the range: the buckets add up to the filtered /stats', async () => {
    const cases: StatsQuery[] = [{ fromTimestamp: ts(5), toTimestamp: ts(50) }, { address: A(), fromTimestamp: ts(9), toTimestamp: ts(41) }]
    for (const q of cases) {
      for (const interval of ['hour', 'day']) {
        const series = (await explorer.get(path('/stats/series', { ...q, interval }))).body as { buckets: { settlements: number; volume: Record<string, string> }[] }
        const stats = (await explorer.get(path('/stats', q))).body
        assert.equal(series.buckets.reduce((n, b) => n + b.settlements, 0), stats.totalSettlements)
        const volume: Record<string, string> = {}
        for (const b of series.buckets) for (const [symbol, v] of Object.entries(b.volume)) volume[symbol] = (BigInt(volume[symbol] ?? '0') + BigInt(v)).toString()
        assert.deepEqual(volume, stats.totalVolume)
        await checkSeries({ ...q, interval })
      }
    }
  })

  test('exactly 2,000 buckets are answered', async () => {
    const from = Math.floor(onChain[0]!.timestamp / 3600) * 3600
    const { status, body } = await explorer.get(`/stats/series?interval=hour&fromTimestamp=${from}&toTimestamp=${from + 2000 * 3600 - 1}`)
    assert.equal(status, 200)
    assert.equal(body.buckets.length, 2000)
  })
})

describe('a reorg', () => {
  const queries = (): StatsQuery[] => [{}, { address: A() }, { token: chain.deployment.tokens[0]!.address, minAmount: median() }, { recipient: chain.deployment.recipients[0]!, fromTimestamp: ts(3) }]
  /** Sends rounds, waits for the explorer, and compares stats and series with the chain's settlements. */
  async function sendAndCheck(rounds: [number, number][], expectedCount: number): Promise<void> {
    await sendRounds(rounds)
    await waitForHead(chain, explorer.url)
    // After the revert the explorer's head may still be the abandoned, longer branch's, which waitForHead
    // (block numbers) takes for caught up: wait until it is the chain's head block itself.
    const head = await rpc<{ hash: Hex }>('eth_getBlockByNumber', ['latest', false])
    await waitFor('the explorer on the chain\'s head block', async () => (await explorer.get('/')).body.indexedHead?.blockHash === head.hash)
    onChain = await settlementsOnChain(chain)
    assert.equal(onChain.length, expectedCount)
    for (const q of queries()) {
      await checkStats(q)
      await checkSeries(wholeRange(q, 'hour'))
      await checkSeries(wholeRange(q, 'day'))
    }
  }

  test('changes stats and series exactly as it changes the settlements', async () => {
    const snapshot = await rpc<string>('evm_snapshot')
    const before = onChain.length
    await sendAndCheck([[5, 4_000], [4, 0]], before + 9)
    assert.equal(await rpc<boolean>('evm_revert', [snapshot]), true)
    // The explorer has rolled back once its indexed head is the new branch's.
    await sendAndCheck([[3, 0]], before + 3)
  })
})

describe('the walk bound (STATS_MAX_WALK)', () => {
  test('a statistic that would read more settlements one by one is a 400 naming what made it a walk; buckets still answer', async () => {
    const bounded = await startTestExplorer(chain, { STATS_MAX_WALK: '3', CONFIRMATION_BLOCKS: '0' })
    try {
      await waitForHead(chain, bounded.url)
      const refused: [StatsQuery, string][] = [
        [{ minAmount: '1' }, 'minAmount'],
        [{ token: chain.deployment.tokens[0]!.address, maxAmount: median() }, 'maxAmount'],
        [{ recipient: chain.deployment.recipients[0]!, acquirerId: `0x${'0'.repeat(32)}` }, 'acquirerId'],
        [{ payer: A() }, 'payer'],
      ]
      for (const [q, param] of refused) {
        const response = await bounded.get(path('/stats', q))
        assert.equal(response.status, 400, JSON.stringify(q))
        assert.equal(response.body.param, param)
        assert.match(response.body.detail, /STATS_MAX_WALK/)
        assert.equal((await bounded.get(path('/stats/series', wholeRange(q, 'day')))).body.param, param)
      }
      // Aligned to the hour, a recipient's month reads buckets only.
      const aligned = { recipient: chain.deployment.recipients[0]!, fromTimestamp: hourStart(0), toTimestamp: String(Number(hourStart(onChain.length - 1)) + 3599) }
      assert.deepEqual((await bounded.get(path('/stats', aligned))).body, expectedStats(onChain, aligned))
    } finally {
      await bounded.stop()
    }
  })
})

describe('bad input', () => {
  const address = `0x${'ab'.repeat(20)}`
  const bad: [string, string, string][] = [
    ['negative minAmount', '/stats?minAmount=-1', 'minAmount'],
    ['decimal point', '/stats?maxAmount=1.5', 'maxAmount'],
    ['hex amount', '/stats?minAmount=0x10', 'minAmount'],
    ['letters', '/stats?maxAmount=abc', 'maxAmount'],
    ['empty amount', '/stats?minAmount=', 'minAmount'],
    ['amount above 2^256 − 1', `/stats?maxAmount=${2n ** 256n}`, 'maxAmount'],
    ['minAmount above maxAmount', '/stats?minAmount=10&maxAmount=9', 'minAmount'],
    ['malformed token', '/stats?token=0x1234', 'token'],
    ['malformed address', `/stats?address=${address}00`, 'address'],
    ['malformed acquirerId', '/stats?acquirerId=hello', 'acquirerId'],
    ['orderReference is not a statistics filter', `/stats?orderReference=0x${'ab'.repeat(16)}`, 'orderReference'],
    ['unknown parameter', '/stats?limit=5', 'limit'],
    ['repeated parameter', `/stats?payer=${address}&payer=${address}`, 'payer'],
    ['non-numeric block', '/stats?fromBlock=x', 'fromBlock'],
    ['inverted timestamps', '/stats?fromTimestamp=10&toTimestamp=5', 'fromTimestamp'],
    ['series without interval', '/stats/series?fromTimestamp=0&toTimestamp=3600', 'interval'],
    ['series with an unknown interval', '/stats/series?interval=week&fromTimestamp=0&toTimestamp=3600', 'interval'],
    ['series without fromTimestamp', '/stats/series?interval=hour&toTimestamp=3600', 'fromTimestamp'],
    ['series without toTimestamp', '/stats/series?interval=day&fromTimestamp=0', 'toTimestamp'],
    ['series of 2,001 buckets', `/stats/series?interval=hour&fromTimestamp=0&toTimestamp=${2000 * 3600}`, 'toTimestamp'],
    ['series of 2,001 days', `/stats/series?interval=day&fromTimestamp=0&toTimestamp=${2000 * 86_400}`, 'toTimestamp'],
    ['series with inverted timestamps', '/stats/series?interval=hour&fromTimestamp=7200&toTimestamp=0', 'fromTimestamp'],
    ['series with a bad amount', '/stats/series?interval=hour&fromTimestamp=0&toTimestamp=3600&minAmount=1e6', 'minAmount'],
    ['series with a bad filter', '/stats/series?interval=hour&fromTimestamp=0&toTimestamp=3600&recipient=0x', 'recipient'],
    ['series with an unknown parameter', '/stats/series?interval=hour&fromTimestamp=0&toTimestamp=3600&order=asc', 'order'],
  ]
  for (const [name, url, param] of bad) {
    test(`${name} → 400 naming ${param}`, async () => {
      const response = await explorer.get(url)
      assert.equal(response.status, 400)
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
      assert.equal(response.body.status, 400)
      assert.equal(response.body.param, param)
      assert.equal(typeof response.body.detail, 'string')
    })
  }
})
