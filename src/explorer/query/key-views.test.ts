import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { syntheticAcquirer, syntheticPayer, syntheticRecipient, syntheticSteps, syntheticToken } from '../../devnet/testing/index.js'
import { commitBatch } from '../store/commit-batch.js'
import { openStore, type Store } from '../store/open-store.js'
import type { SettlementRecord } from '../store/record.js'
import { rollbackAbove } from '../store/rollback.js'
import type { Hex } from '../../wire/settlement.js'
import type { EventsQuery } from './events-query.js'
import { KeyViews } from './key-views.js'
import { runEventsQuery } from './run-events-query.js'
import { TokenCache } from './token-cache.js'

const options = { payers: 30, recipients: 8, tokens: 2, acquirers: 3, acquirerShare: 0.5, paidToPayerShare: 0.2, seed: 3 }
let dir: string
let store: Store
let tokens: TokenCache
const records: SettlementRecord[] = []
const steps = [...syntheticSteps(1600, options)]

let seed = 11
const pick = (n: number) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return (seed >>> 8) % n
}

/** A random single-field query: any limit, order, cursor, block and time bounds. */
function randomQuery(): EventsQuery {
  const r = records[pick(records.length)]!
  const filters: EventsQuery[] = [
    { limit: 20, order: 'desc', recipient: syntheticRecipient(pick(options.recipients)) },
    { limit: 20, order: 'desc', payer: syntheticPayer(pick(options.payers)) },
    { limit: 20, order: 'desc', acquirerId: syntheticAcquirer(pick(options.acquirers)) },
    { limit: 20, order: 'desc', orderReference: r.reference.slice(0, 34) as Hex },
    { limit: 20, order: 'desc', token: syntheticToken(pick(options.tokens)) },
  ]
  const q = filters[pick(filters.length)]!
  q.limit = [1, 3, 20, 100][pick(4)]!
  q.order = pick(2) === 0 ? 'asc' : 'desc'
  const at = records[pick(records.length)]!
  if (pick(2) === 0) q.after = { blockNumber: at.blockNumber, logIndex: Math.max(0, at.logIndex + pick(3) - 1) }
  if (pick(4) === 0) q.fromBlock = records[pick(records.length)]!.blockNumber
  if (pick(4) === 0) q.toBlock = records[pick(records.length)]!.blockNumber + pick(3)
  if (pick(5) === 0) q.fromTimestamp = records[pick(records.length)]!.timestamp
  if (pick(5) === 0) q.toTimestamp = records[pick(records.length)]!.timestamp - 1
  return q
}

/** Every view answer equals the engine's, and views did answer. */
function checkAgainstEngine(views: KeyViews, queries: number): void {
  let answered = 0
  for (let i = 0; i < queries; i++) {
    const q = randomQuery()
    for (let attempt = 0; attempt < 2; attempt++) {
      const page = views.page(q)
      if (!page) continue
      answered++
      assert.equal(page.toString(), runEventsQuery(store, tokens, q).toString(), JSON.stringify(q))
    }
  }
  assert.ok(answered > queries / 2, `${answered} of ${queries * 2} asked were answered by views`)
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'explorer-views-'))
  store = openStore({ path: dir, noSync: true })
  const tokenInfos = Array.from({ length: options.tokens }, (_, t) => ({ address: syntheticToken(t), symbol: `TK${t}`, decimals: 6 }))
  for (const step of steps.slice(0, -40)) {
    records.push(...step.records)
    await commitBatch(store, { ...step, tokens: records.length === step.records.length ? tokenInfos : [] })
  }
  tokens = new TokenCache(store)
})

after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

test('a view answers every page of its filter as the query engine does, total and cursor included', () => {
  checkAgainstEngine(new KeyViews({ store, tokens, maxBytes: 64 * 1024 ** 2, admitAfter: 1 }), 1500)
})

test('commits and rollbacks reported to the views keep them exact', async () => {
  const views = new KeyViews({ store, tokens, maxBytes: 64 * 1024 ** 2, admitAfter: 1 })
  checkAgainstEngine(views, 300)
  for (const step of steps.slice(-40, -20)) {
    const committed = await commitBatch(store, step)
    records.push(...step.records)
    views.committed(committed)
    checkAgainstEngine(views, 100)
  }
  const ancestor = steps.at(-31)!.head
  const removed = await rollbackAbove(store, ancestor)
  records.splice(records.length - removed.length)
  views.removed(removed)
  checkAgainstEngine(views, 300)
})

test('a view waits for enough misses: the admission count, and one per 25 settlements of the value', () => {
  const views = new KeyViews({ store, tokens, maxBytes: 64 * 1024 ** 2, admitAfter: 3 })
  const q: EventsQuery = { limit: 20, order: 'desc', recipient: syntheticRecipient(1) }
  const settlements = records.filter((r) => r.recipient === q.recipient).length
  const needed = Math.max(3, Math.ceil(settlements / 25))
  for (let miss = 1; miss < needed; miss++) assert.equal(views.page(q), undefined, `miss ${miss}`)
  assert.equal(views.page(q)?.toString(), runEventsQuery(store, tokens, q).toString())
})

test('no view for a value with more settlements than the limit, or larger than the byte bound', () => {
  const capped = new KeyViews({ store, tokens, maxBytes: 64 * 1024 ** 2, maxSettlements: 10, admitAfter: 1 })
  const q: EventsQuery = { limit: 20, order: 'desc', token: syntheticToken(0) }
  assert.equal(capped.page(q), undefined)
  assert.equal(capped.page(q), undefined)
  const tiny = new KeyViews({ store, tokens, maxBytes: 1000, admitAfter: 1 })
  const r: EventsQuery = { limit: 20, order: 'desc', recipient: syntheticRecipient(0) }
  assert.equal(tiny.page(r), undefined)
  assert.equal(tiny.page(r), undefined)
})
