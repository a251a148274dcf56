/**
 * The page cache and the views of single-field filters never serve a stale page: the real explorer
 * (indexer, REST routes, page cache, views) follows a scripted chain while blocks are mined and reorganisations replace the newest blocks, and
 * every `/events` answer — read again and again, so that most come from the cache — is compared with
 * the query engine's answer from the store at that moment, `total` and `nextCursor` included.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { runEventsQuery } from '../../src/explorer/query/run-events-query.js'
import { TokenCache } from '../../src/explorer/query/token-cache.js'
import { parseEventsQuery } from '../../src/explorer/api/rest/parse-query.js'
import type { RunningExplorer } from '../../src/explorer/start-explorer.js'
import { encodeCursor } from '../../src/explorer/store/cursor.js'
import { readHead } from '../../src/explorer/store/meta.js'
import { settlementWrites } from '../../src/explorer/store/settlement-writes.js'
import type { Hex } from '../../src/wire/settlement.js'
import { waitFor, ScriptedChain, type ScriptedSettlement, startScriptedExplorer, type ScriptedExplorer } from '../../src/devnet/testing/index.js'

const CONTRACT = '0x5e771e0000000000000000000000000000000002' as Hex
const address = (prefix: number, i: number) => `0x${prefix.toString(16)}${i.toString(16).padStart(38, '0')}` as Hex
const TOKENS = [address(0x70, 1), address(0x70, 2)]
const PAYERS = [0, 1, 2].map((i) => address(0x9a, i))
const RECIPIENTS = [0, 1, 2].map((i) => address(0x4e, i))
const ACQUIRERS = [1, 2].map((i) => i.toString(16).padStart(32, 'a'))

/** Deterministic and small: few distinct values, so that every filter matches often and pages change. */
function random(seed: number) {
  let state = seed
  return (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return (state >>> 8) % n
  }
}
const pick = random(7)
let references = 0

function settlement(): ScriptedSettlement {
  const payer = PAYERS[pick(3)]!
  // One in five pays itself: `address` counts a self-payment once.
  const recipient = pick(5) === 0 ? payer : RECIPIENTS[pick(3)]!
  const acquirer = pick(3) === 0 ? '0'.repeat(32) : ACQUIRERS[pick(2)]!
  return {
    token: TOKENS[pick(2)]!,
    payer,
    recipient,
    amount: BigInt(1 + pick(1_000_000)),
    fee: BigInt(pick(1000)),
    reference: `0x${(++references).toString(16).padStart(32, '0')}${acquirer}`,
    domainSeparator: `0x${'d5'.repeat(32)}`,
  }
}

const chain = new ScriptedChain({ contract: CONTRACT })
let explorer: RunningExplorer
let running: ScriptedExplorer | undefined
let tokens: TokenCache

/** Every kind of page: each filter, several together, block and time bounds below and past the head, cursors both ways. */
function queries(): string[] {
  // Blocks come every 12 s: t0 + 60 and t0 + 96 are the timestamps of blocks 17 and 20, bounds included.
  const t0 = chain.head.timestamp
  return [
    '',
    'limit=3',
    'order=asc&limit=4',
    `recipient=${RECIPIENTS[0]}`,
    `recipient=${RECIPIENTS[1]}&limit=2`,
    `payer=${PAYERS[0]}&order=asc&limit=3`,
    `token=${TOKENS[1]}&limit=5`,
    `acquirerId=0x${ACQUIRERS[0]}`,
    `address=${PAYERS[1]}`,
    `address=${PAYERS[2]}&limit=2&order=asc`,
    `orderReference=0x${(3).toString(16).padStart(32, '0')}`,
    `token=${TOKENS[0]}&recipient=${RECIPIENTS[2]}`,
    `recipient=${RECIPIENTS[0]}&acquirerId=0x${ACQUIRERS[1]}&limit=2`,
    `payer=${PAYERS[2]}&address=${PAYERS[0]}`,
    'fromBlock=6&limit=4',
    'toBlock=8',
    'toBlock=16&limit=3',
    `toBlock=19&payer=${PAYERS[1]}`,
    'toBlock=25&order=asc',
    'toBlock=100000&limit=2',
    `fromBlock=5&toBlock=30&recipient=${RECIPIENTS[1]}`,
    `fromTimestamp=${t0 + 60}`,
    `toTimestamp=${t0 + 96}&order=asc`,
    `payer=${PAYERS[1]}&fromTimestamp=${t0}&toBlock=100000`,
    `cursor=${encodeCursor(9, 1)}&limit=3`,
    `recipient=${RECIPIENTS[2]}&cursor=${encodeCursor(12, 0)}`,
    `order=asc&cursor=${encodeCursor(20, 3)}&limit=5`,
  ]
}
let pageQueries: string[]

before(async () => {
  for (let b = 0; b < 12; b++) chain.mine(Array.from({ length: pick(4) }, settlement))
  pageQueries = queries()
  running = await startScriptedExplorer(chain)
  explorer = running.explorer
  tokens = new TokenCache(explorer.store)
  await indexed()
})

after(async () => {
  await running?.stop()
})

/** Waits until the explorer holds exactly the scripted chain's head. */
async function indexed(): Promise<void> {
  const { blockNumber, blockHash } = chain.head
  await waitFor(`block ${blockNumber} indexed`, () => {
    const head = readHead(explorer.store)
    return head?.blockNumber === blockNumber && head.blockHash === blockHash
  })
}

/** The query engine's own answer from the store now, with no cache in front of it. */
const uncached = (query: string) => JSON.parse(runEventsQuery(explorer.store, tokens, parseEventsQuery(query)).toString('utf8'))

async function get(query: string): Promise<unknown> {
  const response = await fetch(`${explorer.url}/events${query ? `?${query}` : ''}`)
  assert.equal(response.status, 200, query)
  return JSON.parse(await response.text())
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${explorer.url}/metrics`)).text()
  return Number(new RegExp(`^explorer_${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
}

test('block by block, with reorganisations: every page read three times equals the uncached answer', async () => {
  for (let step = 0; step < 40; step++) {
    if (step % 8 === 7) {
      // Replace the newest one to three blocks by a branch of another length and other settlements.
      chain.reorg(1 + pick(3))
      for (let b = pick(4); b >= 0; b--) chain.mine(Array.from({ length: pick(4) }, settlement))
    } else {
      // Some blocks hold no settlement: the head moves, no page may change.
      chain.mine(Array.from({ length: pick(3) }, settlement))
    }
    await indexed()
    for (const query of pageQueries) {
      for (let read = 0; read < 3; read++) assert.deepEqual(await get(query), uncached(query), `step ${step}, read ${read}: ${query}`)
    }
  }
  assert.ok((await metric('page_cache_hits_total')) > 1000, 'most of the reads came from the cache')
  assert.ok((await metric('page_cache_drops_total')) > 100, 'commits and rollbacks dropped pages')
  assert.ok((await metric('reorgs_total')) >= 4)
})

test('while blocks and reorganisations arrive: each answer equals the store at that moment', async (t) => {
  // An answer is checked when no settlement write was in flight or started between sending the
  // request and reading the answer: then exactly one state of the store applies to it.
  const writes = settlementWrites(explorer.store)
  const startedBefore = writes.started
  const viewPagesBefore = await metric('key_view_pages_total')
  let running = true
  const writer = (async () => {
    for (let step = 1; running; step++) {
      if (step % 10 === 0) chain.reorg(1 + pick(3))
      chain.mine(Array.from({ length: pick(4) }, settlement))
      await new Promise((resolve) => setTimeout(resolve, 10 + pick(20)))
    }
  })()
  let checked = 0
  let asked = 0
  try {
    for (; checked < 1500 && asked < 20_000; asked++) {
      const query = pageQueries[pick(pageQueries.length)]!
      const started = writes.started
      const idle = writes.settled === started
      const answer = await get(query)
      if (!idle || writes.started !== started || writes.settled !== started) continue
      assert.deepEqual(answer, uncached(query), query)
      checked++
    }
  } finally {
    running = false
    await writer
  }
  t.diagnostic(`${checked} of ${asked} answers checked (the others overlapped a write), ${writes.started - startedBefore} writes`)
  assert.equal(checked, 1500)
  assert.ok(writes.started - startedBefore > 50, `the chain moved while pages were read (${writes.started - startedBefore} writes)`)
  assert.ok((await metric('key_view_pages_total')) - viewPagesBefore > 20, 'views of single-field filters answered pages too')
})
