import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { syntheticAcquirer, syntheticPayer, syntheticRecipient, syntheticSteps, syntheticToken } from '../../devnet/testing/index.js'
import { commitBatch } from '../store/commit-batch.js'
import { decodeCursor } from '../store/cursor.js'
import { openStore, type Store } from '../store/open-store.js'
import { rollbackAbove } from '../store/rollback.js'
import type { SettlementRecord } from '../store/record.js'
import type { EventPage, Hex, Settlement } from '../../wire/settlement.js'
import type { EventsQuery } from './events-query.js'
import { findFirstSettlement } from './find-settlement.js'
import { createQueryExecutor, QueryPoolBusy } from './query-executor.js'
import type { QueryTask } from './query-task.js'
import { fieldFilters, runEventsQuery } from './run-events-query.js'
import { amountPlan } from './amount-query.js'
import { keyRange } from './block-range.js'
import { TokenCache } from './token-cache.js'

const COUNT = 3000
const options = { payers: 40, recipients: 15, tokens: 3, acquirers: 4, acquirerShare: 0.4, paidToPayerShare: 0.3 }
let dir: string
let store: Store
let tokens: TokenCache
const records: SettlementRecord[] = []

const ref16 = (r: SettlementRecord) => r.reference.slice(0, 34) as Hex
const acq16 = (r: SettlementRecord) => `0x${r.reference.slice(34)}`
const involves = (r: SettlementRecord, address: Hex) => r.payer === address || r.recipient === address
const isSelfPayment = (r: SettlementRecord) => r.payer === r.recipient
/**
 * The `address` under test: the payer of the newest self-payment, which also pays and is paid by others
 * (checked in `before`), so every way an address can match is exercised, and a rollback takes one back.
 */
let address: Hex
/** A payer who paid `address`. */
let payerOfAddress: Hex

/** The same query answered by brute force over the records, in chain order. */
function expected(q: EventsQuery): SettlementRecord[] {
  const matches = records.filter(
    (r) =>
      (!q.token || r.token === q.token) &&
      (!q.recipient || r.recipient === q.recipient) &&
      (!q.payer || r.payer === q.payer) &&
      (!q.orderReference || ref16(r) === q.orderReference) &&
      (!q.acquirerId || acq16(r) === q.acquirerId) &&
      (!q.address || involves(r, q.address)) &&
      (q.fromBlock === undefined || r.blockNumber >= q.fromBlock) &&
      (q.toBlock === undefined || r.blockNumber <= q.toBlock) &&
      (q.fromTimestamp === undefined || r.timestamp >= q.fromTimestamp) &&
      (q.toTimestamp === undefined || r.timestamp <= q.toTimestamp) &&
      (q.minAmount === undefined || r.amount >= BigInt(q.minAmount)) &&
      (q.maxAmount === undefined || r.amount <= BigInt(q.maxAmount)),
  )
  return q.order === 'asc' ? matches : matches.reverse()
}

function pageThrough(q: Omit<EventsQuery, 'after'>): { events: Settlement[]; totals: number[] } {
  const events: Settlement[] = []
  const totals: number[] = []
  let after: EventsQuery['after']
  for (;;) {
    const page = JSON.parse(runEventsQuery(store, tokens, { ...q, after }).toString()) as EventPage
    events.push(...page.events)
    totals.push(page.total)
    if (!page.nextCursor) return { events, totals }
    assert.equal(page.events.length, q.limit)
    after = decodeCursor(page.nextCursor)
    assert.ok(after)
  }
}

const ids = (list: { blockNumber: number; logIndex: number }[]) => list.map((e) => `${e.blockNumber}:${e.logIndex}`)

/** A settlement as SPEC §2.1 renders it. */
const asEvent = (r: SettlementRecord): Settlement => ({
  txHash: r.txHash,
  blockNumber: r.blockNumber,
  logIndex: r.logIndex,
  timestamp: r.timestamp,
  token: r.token,
  tokenSymbol: `TK${Number.parseInt(r.token.slice(-2), 16)}`,
  tokenDecimals: 6,
  payer: r.payer,
  recipient: r.recipient,
  amount: r.amount.toString(),
  fee: r.fee.toString(),
  orderReference: ref16(r),
  acquirerId: acq16(r) as Hex,
  domainSeparator: r.domainSeparator,
})

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'explorer-query-'))
  store = openStore({ path: dir, noSync: true })
  const tokenInfos = Array.from({ length: options.tokens }, (_, t) => ({ address: syntheticToken(t), symbol: `TK${t}`, decimals: 6 }))
  for (const step of syntheticSteps(COUNT, options)) {
    records.push(...step.records)
    await commitBatch(store, { ...step, tokens: records.length === step.records.length ? tokenInfos : [] })
  }
  tokens = new TokenCache(store)
  address = records.filter(isSelfPayment).at(-1)!.payer
  payerOfAddress = records.find((r) => r.recipient === address && r.payer !== address)!.payer
  assert.ok(records.some((r) => r.payer === address && r.recipient !== address), 'the address also pays others')
})

after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('runEventsQuery against brute force', () => {
  const mid = () => records[COUNT / 2]!
  const cases: [string, () => Omit<EventsQuery, 'after' | 'limit' | 'order'>][] = [
    ['no filter', () => ({})],
    ['token', () => ({ token: syntheticToken(1) })],
    ['recipient', () => ({ recipient: syntheticRecipient(3) })],
    ['payer', () => ({ payer: syntheticPayer(7) })],
    ['orderReference', () => ({ orderReference: ref16(mid()) as `0x${string}` })],
    ['acquirerId', () => ({ acquirerId: syntheticAcquirer(2) })],
    ['zero acquirerId', () => ({ acquirerId: `0x${'0'.repeat(32)}` })],
    ['block range', () => ({ fromBlock: records[500]!.blockNumber, toBlock: records[2100]!.blockNumber })],
    ['timestamp range', () => ({ fromTimestamp: records[800]!.timestamp, toTimestamp: records[1900]!.timestamp })],
    ['token + recipient', () => ({ token: syntheticToken(0), recipient: syntheticRecipient(4) })],
    ['payer + token + block range', () => ({ payer: syntheticPayer(2), token: syntheticToken(2), fromBlock: records[300]!.blockNumber })],
    ['recipient + acquirer + timestamp', () => ({ recipient: syntheticRecipient(1), acquirerId: syntheticAcquirer(0), toTimestamp: records[2500]!.timestamp })],
    ['recipient + block range', () => ({ recipient: syntheticRecipient(9), fromBlock: records[1000]!.blockNumber, toBlock: records[2000]!.blockNumber })],
    ['unknown recipient', () => ({ recipient: syntheticRecipient(999) })],
    ['recipient + a token never seen', () => ({ recipient: syntheticRecipient(3), token: syntheticToken(99) })],
    ['recipient + payer + acquirer', () => ({ recipient: mid().recipient, payer: mid().payer, acquirerId: acq16(mid()) as Hex })],
    ['recipient + orderReference', () => ({ recipient: mid().recipient, orderReference: ref16(mid()) as Hex })],
    ['address (payer, recipient and self-payer)', () => ({ address })],
    ['address of a recipient only', () => ({ address: syntheticRecipient(3) })],
    ['unknown address', () => ({ address: syntheticPayer(999) })],
    ['address + token', () => ({ address, token: syntheticToken(1) })],
    ['address + recipient (the same address)', () => ({ address, recipient: address })],
    ['address + recipient (another)', () => ({ address, recipient: syntheticRecipient(2) })],
    ['address + payer (the same address)', () => ({ address, payer: address })],
    ['address + payer (another): what that payer paid to the address', () => ({ address, payer: payerOfAddress })],
    ['address + payer + recipient: its self-payments', () => ({ address, payer: address, recipient: address })],
    ['address + orderReference', () => ({ address, orderReference: ref16(records.find((r) => involves(r, address))!) })],
    ['address + orderReference of another settlement', () => ({ address, orderReference: ref16(records.find((r) => !involves(r, address))!) })],
    ['address + acquirerId', () => ({ address, acquirerId: syntheticAcquirer(1) })],
    ['address + zero acquirerId + block range', () => ({ address, acquirerId: `0x${'0'.repeat(32)}`, fromBlock: records[400]!.blockNumber, toBlock: records[2600]!.blockNumber })],
    ['address + block range', () => ({ address, fromBlock: records[700]!.blockNumber, toBlock: records[2900]!.blockNumber })],
    ['address + block range ending at its self-payment', () => ({ address, fromBlock: records[1500]!.blockNumber, toBlock: records.filter(isSelfPayment).at(-1)!.blockNumber })],
    ['address + block range starting at its self-payment', () => ({ address, fromBlock: records.filter(isSelfPayment).at(-1)!.blockNumber })],
    ['address + timestamp range', () => ({ address, fromTimestamp: records[200]!.timestamp, toTimestamp: records[2200]!.timestamp })],
    ['address + token + recipient + timestamp', () => ({ address, token: syntheticToken(0), recipient: syntheticRecipient(5), toTimestamp: records[2700]!.timestamp })],
    ['empty block range', () => ({ fromBlock: 10, toBlock: 20 })],
    ['minAmount', () => ({ minAmount: '500000000' })],
    ['maxAmount', () => ({ maxAmount: '10000000' })],
    ['amount range, narrow (listed from the amount index)', () => ({ minAmount: '500000000', maxAmount: '505000000' })],
    ['token + amount range, narrow', () => ({ token: syntheticToken(1), minAmount: '300000000', maxAmount: '310000000' })],
    ['token + amount range, wide (walked in chain order)', () => ({ token: syntheticToken(1), minAmount: '10000000', maxAmount: '990000000' })],
    ['token + one exact amount', () => ({ token: mid().token, minAmount: mid().amount.toString(), maxAmount: mid().amount.toString() })],
    ['token + amount range + block range', () => ({ token: syntheticToken(0), minAmount: '200000000', maxAmount: '700000000', fromBlock: records[600]!.blockNumber, toBlock: records[2400]!.blockNumber })],
    ['narrow amount range + timestamp range', () => ({ minAmount: '100000000', maxAmount: '120000000', fromTimestamp: records[900]!.timestamp })],
    ['recipient + minAmount', () => ({ recipient: syntheticRecipient(3), minAmount: '400000000' })],
    ['address + maxAmount', () => ({ address, maxAmount: '600000000' })],
    ['token + payer + amount range', () => ({ token: syntheticToken(2), payer: syntheticPayer(5), minAmount: '100000000', maxAmount: '900000000' })],
    ['amount range above every amount', () => ({ minAmount: (2n ** 256n - 1n).toString() })],
    ['four whole amount classes of every token (merged)', () => ({ minAmount: String(2 ** 28), maxAmount: String(2 ** 28 + 4 * 2 ** 22 - 1) })],
    ['token + eight whole amount classes (merged)', () => ({ token: syntheticToken(0), minAmount: String(2 ** 28), maxAmount: String(2 ** 28 + 8 * 2 ** 22 - 1) })],
    ['token + a range cutting through its end classes (merged)', () => ({ token: syntheticToken(2), minAmount: '270000000', maxAmount: '320000000' })],
    ['token + merged classes + block range', () => ({ token: syntheticToken(1), minAmount: '270000000', maxAmount: '320000000', fromBlock: records[700]!.blockNumber, toBlock: records[2300]!.blockNumber })],
    ['timestamps after the last', () => ({ fromTimestamp: records[COUNT - 1]!.timestamp + 1 })],
  ]
  for (const [name, filters] of cases) {
    for (const order of ['asc', 'desc'] as const) {
      test(`${name}, ${order}: every page, exact total, no gap, no duplicate`, () => {
        const q = { ...filters(), order, limit: 37 }
        const want = expected(q)
        const got = pageThrough(q)
        assert.deepEqual(ids(got.events), ids(want))
        for (const total of got.totals) assert.equal(total, want.length)
      })
    }
  }

  test('the merged cases above are answered by merging amount classes (of one token or of every token), the narrow one by listing, the wide one by walking', () => {
    const how = (q: Omit<EventsQuery, 'limit' | 'order'>) => {
      const query = { ...q, limit: 37, order: 'desc' as const }
      return amountPlan(store, query, keyRange(store, query)!, fieldFilters(query)[0]).how
    }
    assert.equal(how({ token: syntheticToken(0), minAmount: String(2 ** 28), maxAmount: String(2 ** 28 + 8 * 2 ** 22 - 1) }), 'merge')
    assert.equal(how({ token: syntheticToken(2), minAmount: '270000000', maxAmount: '320000000' }), 'merge')
    assert.equal(how({ token: syntheticToken(1), minAmount: '270000000', maxAmount: '320000000', fromBlock: records[700]!.blockNumber, toBlock: records[2300]!.blockNumber }), 'merge')
    assert.equal(how({ minAmount: String(2 ** 28), maxAmount: String(2 ** 28 + 4 * 2 ** 22 - 1) }), 'merge')
    assert.equal(how({ token: syntheticToken(1), minAmount: '300000000', maxAmount: '310000000' }), 'list')
    assert.equal(how({ token: syntheticToken(1), minAmount: '10000000', maxAmount: '990000000' }), 'walk')
  })

  test('a self-payment matches its address once and counts once', () => {
    const selfPayments = records.filter((r) => isSelfPayment(r) && r.payer === address)
    assert.ok(selfPayments.length > 0)
    const got = pageThrough({ address, order: 'asc', limit: 100 })
    assert.equal(got.totals[0], records.filter((r) => involves(r, address)).length)
    const gotIds = ids(got.events)
    for (const id of ids(selfPayments)) assert.equal(gotIds.filter((g) => g === id).length, 1, id)
  })

  test('renders every field of SPEC §2.1 from the record', () => {
    const r = mid()
    const page = JSON.parse(runEventsQuery(store, tokens, { order: 'asc', limit: 1, orderReference: ref16(r) }).toString()) as EventPage
    assert.deepEqual(page.events[0], asEvent(r))
  })

  test("a recipient's pages, read from its covering runs, hold each settlement's own fields", () => {
    for (const order of ['asc', 'desc'] as const) {
      const q = { recipient: syntheticRecipient(6), order, limit: 23 }
      assert.deepEqual(pageThrough(q).events, expected(q).map(asEvent))
    }
  })

  test('finds by transaction hash and order reference', () => {
    const r = records[1234]!
    assert.equal((JSON.parse(findFirstSettlement(store, tokens, 'txHash', r.txHash)!.toString()) as Settlement).logIndex, r.logIndex)
    assert.equal((JSON.parse(findFirstSettlement(store, tokens, 'orderReference', ref16(r))!.toString()) as Settlement).txHash, r.txHash)
    assert.equal(findFirstSettlement(store, tokens, 'txHash', `0x${'ab'.repeat(32)}`), undefined)
  })

  test('a transaction hash or order reference several settlements share finds the one of the lowest log index', async () => {
    const own = mkdtempSync(join(tmpdir(), 'explorer-lookup-'))
    const lookupStore = openStore({ path: own, noSync: true })
    try {
      const template = records[0]!
      const shared = [2, 5, 7].map((logIndex, i): SettlementRecord => ({ ...template, blockNumber: 50, blockHash: `0x${'b5'.repeat(32)}`, logIndex, amount: BigInt(i + 1) }))
      const tokenInfo = { address: template.token, symbol: 'TK', decimals: 6 }
      await commitBatch(lookupStore, { records: shared, blocks: [{ blockNumber: 50, blockHash: shared[0]!.blockHash, timestamp: template.timestamp }], head: { blockNumber: 50, blockHash: shared[0]!.blockHash }, tokens: [tokenInfo] })
      const lookupTokens = new TokenCache(lookupStore)
      for (const [field, value] of [['txHash', template.txHash], ['orderReference', ref16(template)]] as const) {
        const found = JSON.parse(findFirstSettlement(lookupStore, lookupTokens, field, value)!.toString()) as Settlement
        assert.deepEqual([found.logIndex, found.amount], [2, '1'], field)
      }
    } finally {
      await lookupStore.close()
      rmSync(own, { recursive: true, force: true })
    }
  })
})

test('transaction hashes sharing their index key (8 bytes, the words XORed) are each found as themselves', async () => {
  const own = mkdtempSync(join(tmpdir(), 'explorer-prefix-'))
  const lookupStore = openStore({ path: own, noSync: true })
  try {
    const template = records[0]!
    // Each word pair swapped keeps the XOR of the four words: three hashes with one index key.
    const words = [template.txHash.slice(2, 18), template.txHash.slice(18, 34), 'ab'.repeat(8), 'cd'.repeat(8)]
    const hashes = [[0, 1, 2, 3], [1, 0, 2, 3], [0, 1, 3, 2]].map((order) => `0x${order.map((w) => words[w]).join('')}` as Hex)
    const blockHash = `0x${'b6'.repeat(32)}` as Hex
    const sharing = hashes.map((txHash, i): SettlementRecord => ({ ...template, txHash, blockNumber: 60, blockHash, logIndex: i, amount: BigInt(i + 1) }))
    const tokenInfo = { address: template.token, symbol: 'TK', decimals: 6 }
    await commitBatch(lookupStore, { records: sharing, blocks: [{ blockNumber: 60, blockHash, timestamp: template.timestamp }], head: { blockNumber: 60, blockHash }, tokens: [tokenInfo] })
    const lookupTokens = new TokenCache(lookupStore)
    for (const [i, txHash] of hashes.entries()) {
      const found = JSON.parse(findFirstSettlement(lookupStore, lookupTokens, 'txHash', txHash)!.toString()) as Settlement
      assert.deepEqual([found.txHash, found.amount], [txHash, String(i + 1)])
    }
    assert.equal(findFirstSettlement(lookupStore, lookupTokens, 'txHash', `0x${[1, 0, 3, 2].map((w) => words[w]).join('')}` as Hex), undefined)
  } finally {
    await lookupStore.close()
    rmSync(own, { recursive: true, force: true })
  }
})

describe('a bounded walk (EVENTS_MAX_WALK)', () => {
  /** Pages of `q` with `maxWalk`: every page, its total and whether the total is a lower bound. */
  function boundedPages(q: Omit<EventsQuery, 'after'>, maxWalk: number) {
    const pages: (EventPage & { totalRelation?: string })[] = []
    let after: EventsQuery['after']
    for (let i = 0; i < 10_000; i++) {
      const page = JSON.parse(runEventsQuery(store, tokens, { ...q, after }, maxWalk).toString()) as EventPage & { totalRelation?: string }
      pages.push(page)
      if (!page.nextCursor) return pages
      after = decodeCursor(page.nextCursor)
    }
    throw new Error('paging did not end')
  }
  const cases: [string, () => Omit<EventsQuery, 'after' | 'limit' | 'order'>][] = [
    ['token + zero acquirerId (dense)', () => ({ token: syntheticToken(0), acquirerId: `0x${'0'.repeat(32)}` })],
    ['token + recipient (sparse)', () => ({ token: syntheticToken(0), recipient: syntheticRecipient(4) })],
    ['address + token', () => ({ address, token: syntheticToken(1) })],
    ['token + payer + amount range', () => ({ token: syntheticToken(2), payer: syntheticPayer(5), minAmount: '100000000', maxAmount: '900000000' })],
  ]
  for (const [name, filters] of cases) {
    for (const order of ['asc', 'desc'] as const) {
      test(`${name}, ${order}: pages cut off at 50 candidates still give every match once, in order; totals are lower bounds, said so`, () => {
        const q = { ...filters(), order, limit: 7 }
        const want = expected(q)
        const pages = boundedPages(q, 50)
        assert.deepEqual(ids(pages.flatMap((p) => p.events)), ids(want))
        for (const page of pages) {
          assert.ok(page.events.length <= 7)
          if (page.totalRelation === undefined) assert.equal(page.total, want.length)
          else {
            assert.equal(page.totalRelation, 'gte')
            assert.ok(page.total <= want.length, `${page.total} > ${want.length}`)
          }
        }
      })
    }
  }

  test('a walk that ends within the bound gives the exact total with no totalRelation, as unbounded', () => {
    const q: EventsQuery = { order: 'desc', limit: 5, token: syntheticToken(0), recipient: syntheticRecipient(4) }
    assert.deepEqual(runEventsQuery(store, tokens, q, COUNT), runEventsQuery(store, tokens, q))
    assert.equal(JSON.parse(runEventsQuery(store, tokens, q, COUNT).toString()).totalRelation, undefined)
  })

  test('the first page of a large intersection reads at most the bound: a bound of 50 gives a total of at most 50', () => {
    const q: EventsQuery = { order: 'asc', limit: 100, token: syntheticToken(0), acquirerId: `0x${'0'.repeat(32)}` }
    const page = JSON.parse(runEventsQuery(store, tokens, q, 50).toString()) as EventPage & { totalRelation?: string }
    assert.equal(page.totalRelation, 'gte')
    assert.ok(page.total <= 50 && page.total > 0, String(page.total))
    assert.deepEqual(ids(page.events), ids(expected(q).slice(0, page.events.length)))
    assert.ok(page.nextCursor)
  })
})

describe('createQueryExecutor', () => {
  test('a pool holding its 32 tasks in flight and maxQueue more refuses the next at once (QueryPoolBusy), and takes tasks again once they end', async () => {
    const executor = createQueryExecutor({ store, dataDir: dir, workers: 1, inline: 'none', maxQueue: 8 })
    try {
      const q: EventsQuery = { order: 'desc', limit: 5, token: syntheticToken(0), acquirerId: `0x${'0'.repeat(32)}` }
      const runs = Array.from({ length: 60 }, () => Promise.resolve(executor.run({ kind: 'events', query: q })).then(() => 'answered', (error: unknown) => error))
      const outcomes = await Promise.all(runs)
      assert.equal(outcomes.filter((o) => o === 'answered').length, 40)
      assert.ok(outcomes.slice(40).every((o) => o instanceof QueryPoolBusy && o.retryable))
      assert.ok(await executor.run({ kind: 'events', query: q }))
    } finally {
      await executor.close()
    }
  })


  test("inline 'none': every task goes to the pool, cheap ones too, with the bytes the server thread would answer", async () => {
    const executor = createQueryExecutor({ store, dataDir: dir, workers: 1, inline: 'none' })
    try {
      const page: EventsQuery = { order: 'desc', limit: 5, recipient: syntheticRecipient(2) }
      const pooledPage = executor.run({ kind: 'events', query: page })
      assert.ok(pooledPage instanceof Promise)
      assert.deepEqual(Buffer.from((await pooledPage)!), runEventsQuery(store, tokens, page))

      const r = records[1234]!
      const lookup = executor.run({ kind: 'first', field: 'txHash', value: r.txHash })
      assert.ok(lookup instanceof Promise)
      assert.deepEqual(Buffer.from((await lookup)!), findFirstSettlement(store, tokens, 'txHash', r.txHash))
      const missing = executor.run({ kind: 'first', field: 'txHash', value: `0x${'ab'.repeat(32)}` })
      assert.equal(await missing, undefined)
    } finally {
      await executor.close()
    }
  })

  test('cheap queries answer synchronously; large intersections go to the worker pool with the same answer', async () => {
    const executor = createQueryExecutor({ store, dataDir: dir, workers: 1, inlineCandidates: 10 })
    try {
      const cheap: QueryTask = { kind: 'events', query: { order: 'desc', limit: 5, recipient: syntheticRecipient(2) } }
      const cheapAnswer = executor.run(cheap)
      assert.ok(cheapAnswer instanceof Uint8Array)
      assert.deepEqual(cheapAnswer, runEventsQuery(store, tokens, (cheap as { query: EventsQuery }).query))

      const heavy: EventsQuery = { order: 'asc', limit: 25, token: syntheticToken(0), acquirerId: `0x${'0'.repeat(32)}` }
      const pooled = executor.run({ kind: 'events', query: heavy })
      assert.ok(pooled instanceof Promise)
      const page = JSON.parse(Buffer.from((await pooled)!).toString()) as EventPage
      assert.deepEqual(ids(page.events), ids(expected(heavy).slice(0, 25)))
      assert.equal(page.total, expected(heavy).length)

      const byAddress: EventsQuery = { order: 'desc', limit: 25, address, token: syntheticToken(2) }
      const pooledByAddress = executor.run({ kind: 'events', query: byAddress })
      assert.ok(pooledByAddress instanceof Promise)
      assert.deepEqual(Buffer.from((await pooledByAddress)!), runEventsQuery(store, tokens, byAddress))

      const byAmount: EventsQuery = { order: 'desc', limit: 25, recipient: syntheticRecipient(1), minAmount: '1000', maxAmount: '999999999' }
      const pooledByAmount = executor.run({ kind: 'events', query: byAmount })
      assert.ok(pooledByAmount instanceof Promise)
      assert.deepEqual(Buffer.from((await pooledByAmount)!), runEventsQuery(store, tokens, byAmount))
    } finally {
      await executor.close()
    }
  })
})

describe('rollbackAbove', () => {
  test('takes back the newest blocks and their counts, leaving queries consistent', async () => {
    const keep = records.findIndex((r) => r.blockNumber > records[COUNT - 200]!.blockNumber)
    const ancestor = records[keep - 1]!
    const removed = await rollbackAbove(store, { blockNumber: ancestor.blockNumber, blockHash: ancestor.blockHash })
    assert.equal(removed.length, COUNT - keep)
    assert.equal(removed[0]!.blockNumber, records[COUNT - 1]!.blockNumber, 'newest first')
    assert.ok(records.slice(keep).some((r) => isSelfPayment(r) && r.payer === address), 'a self-payment of the address is taken back')
    records.splice(keep)
    const byAddress = [{ address }, { address, token: syntheticToken(1) }, { address: payerOfAddress }]
    const byAmount = [{ minAmount: '500000000' }, { token: syntheticToken(1), minAmount: '300000000', maxAmount: '310000000' }]
    const byRecipient = Array.from({ length: options.recipients }, (_, i) => ({ recipient: syntheticRecipient(i) }))
    for (const filters of [{}, { token: syntheticToken(1) }, { recipient: syntheticRecipient(3), token: syntheticToken(0) }, ...byAddress, ...byAmount, ...byRecipient]) {
      const q = { ...filters, order: 'desc' as const, limit: 100 }
      const got = pageThrough(q)
      assert.deepEqual(ids(got.events), ids(expected(q)))
      assert.equal(got.totals[0], expected(q).length)
    }
    // Re-indexing after a rollback continues the ordinals where they stopped.
    const more = [...syntheticSteps(50, { ...options, seed: 9, startBlock: ancestor.blockNumber + 5 })]
    for (const step of more) {
      records.push(...step.records)
      await commitBatch(store, step)
    }
    for (const filters of [{ token: syntheticToken(2) }, { address }, { address: syntheticPayer(3) }]) {
      const q = { ...filters, fromBlock: ancestor.blockNumber - 50, order: 'asc' as const, limit: 10 }
      const got = pageThrough(q)
      assert.deepEqual(ids(got.events), ids(expected(q)))
      assert.equal(got.totals[0], expected(q).length)
    }
    // Each recipient's covering runs were cut back and continue: every settlement of it, whole.
    for (let i = 0; i < options.recipients; i++) {
      const q = { recipient: syntheticRecipient(i), order: 'desc' as const, limit: 41 }
      const got = pageThrough(q)
      assert.deepEqual(got.events, expected(q).map(asEvent))
      assert.equal(got.totals[0], expected(q).length)
    }
  })
})
