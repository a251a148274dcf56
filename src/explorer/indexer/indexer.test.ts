import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ScriptedChain, type ScriptedSettlement, syntheticPayer, syntheticRecipient, syntheticToken, waitFor } from '../../devnet/testing/index.js'
import { createLogger } from '../../platform/observability/logger.js'
import { Metrics } from '../../platform/observability/metrics.js'
import { commitBatch } from '../store/commit-batch.js'
import { readHead } from '../store/meta.js'
import { openStore, type Store } from '../store/open-store.js'
import type { StoredSettlement } from '../store/record.js'
import type { Hex } from '../../wire/settlement.js'
import type { ChainSource } from './chain-source.js'
import { fetchRange } from './fetch-range.js'
import { decodeSettlementLog } from './decode-settlement-log.js'
import { Indexer } from './indexer.js'
import { BaseError } from '../../errors/index.js'

const CONTRACT = '0x00000000000000000000000000000000000c0de1' as Hex
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function randomChain(blocks: number): ScriptedChain {
  const chain = new ScriptedChain({ contract: CONTRACT })
  let seed = 7
  const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n)
  for (let b = 1; b <= blocks; b++) {
    const settlements: ScriptedSettlement[] = Array.from({ length: rnd(6) }, () => {
      const token = syntheticToken(rnd(3))
      return {
        token,
        payer: syntheticPayer(rnd(30)),
        recipient: syntheticRecipient(rnd(10)),
        amount: BigInt(1 + rnd(1e9)),
        fee: BigInt(rnd(1e6)),
        reference: `0x${b.toString(16).padStart(32, '0')}${rnd(4) === 0 ? 'ac'.padEnd(32, '1') : '0'.repeat(32)}` as Hex,
        domainSeparator: `0x${token.slice(2).padEnd(64, 'd')}` as Hex,
      }
    })
    chain.mine(settlements)
  }
  return chain
}

function withStore<T>(run: (store: Store) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'indexer-'))
  const store = openStore({ path: dir, noSync: true })
  return run(store).finally(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
}

/** The settlements, their indexes and what is derived from them; not the indexed heads, which depend on the steps taken. */
function settlementsHash(store: Store): string {
  const hash = createHash('sha256')
  for (const db of [store.events, ...Object.values(store.indexes), store.times, store.tokens, store.stats, store.hours]) {
    for (const { key, value } of (db as Store['events']).getRange()) {
      hash.update(Buffer.isBuffer(key) ? key : JSON.stringify(key))
      hash.update(Buffer.isBuffer(value) ? value : JSON.stringify(value))
    }
  }
  hash.update(String(store.meta.get('count')))
  return hash.digest('hex')
}

/** Every settlement of the chain in one step, as the reference the indexer must reach. */
async function referenceHash(chain: ScriptedChain): Promise<string> {
  const source = chain.source()
  const decoded = (await source.settlementLogs(1, chain.head.blockNumber)).map(decodeSettlementLog)
  const headers = new Map(await Promise.all(decoded.map(async (d) => [d.blockNumber, (await source.header(d.blockNumber))!] as const)))
  const tokens = await Promise.all([...new Set(decoded.map((d) => d.token))].map((t) => source.tokenInfo(t)))
  return withStore(async (store) => {
    await commitBatch(store, {
      records: decoded.map((d) => ({ ...d, timestamp: headers.get(d.blockNumber)!.timestamp })),
      blocks: [...headers.values()],
      head: chain.head,
      tokens,
    })
    return settlementsHash(store)
  })
}

test('a failure that no retry can mend stops indexing at once, with the error in the status; a transient one is retried', async () => {
  const chain = randomChain(300)
  const source = chain.source()
  await withStore(async (store) => {
    const attempts = { transient: 0, permanent: 0 }
    const lines: string[] = []
    const indexer = new Indexer({
      store,
      source,
      startBlock: 1,
      confirmations: 0,
      pollIntervalMs: 5,
      logger: createLogger('error', {}, (line) => lines.push(line) > 0),
      metrics: new Metrics(),
      initialRange: 10,
      fetchRange: async (from, to) => {
        if (from === 1 && ++attempts.transient < 3) throw new Error('connection reset')
        if (from > 1) {
          attempts.permanent++
          throw new BaseError('the node serves another chain', { cause: new Error('chain id 5'), retryable: false })
        }
        return fetchRange(source, from, to)
      },
    })
    indexer.start()
    await waitFor('the permanent failure to stop indexing', () => indexer.status().lastError?.includes('another chain'), 10_000)
    const asked = attempts.permanent
    await sleep(600) // past the first retry's backoff (250 ms)
    assert.equal(attempts.transient, 3, 'the transient failure was retried until it passed')
    assert.equal(attempts.permanent, asked, 'no range was asked for again after the permanent failure')
    assert.equal(readHead(store)?.blockNumber, 10)
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; causes: string[] })
    assert.deepEqual(logged.map((entry) => [entry.msg, entry.causes]), [['indexing stopped: the failure does not pass with a retry', ['the node serves another chain', 'chain id 5']]])
    await indexer.stop()
  })
})

test('backfill with ranges in flight, arriving out of order, refused as too large or failing, indexes every settlement once', async () => {
  const chain = randomChain(900)
  const source = chain.source()
  let calls = 0
  // A node that refuses more than 120 logs per call and fails every 7th range (not single blocks: the
  // head is followed block by block, and would retry forever); ranges arrive in random order.
  const flaky: ChainSource = {
    ...source,
    async settlementLogs(from, to) {
      const logs = await source.settlementLogs(from, to)
      if (logs.length > 120) throw new Error('query returned more than 120 results')
      if (to > from && ++calls % 7 === 0) throw new Error('connection reset')
      return logs
    },
  }
  const committed: StoredSettlement[] = []
  await withStore(async (store) => {
    const indexer = new Indexer({
      store,
      source: flaky,
      startBlock: 1,
      confirmations: 0,
      pollIntervalMs: 5,
      logger: createLogger(process.env.TEST_LOG === '1' ? 'debug' : 'silent'),
      metrics: new Metrics(),
      initialRange: 200,
      fetchRange: async (from, to) => {
        await sleep(Math.random() * 5)
        return fetchRange(flaky, from, to)
      },
      listener: { committed: (s) => committed.push(...s), removed: () => assert.fail('nothing was removed') },
    })
    indexer.start()
    // Stopped also when the wait fails, so that the store closes under no running indexer.
    await waitFor(`the backfill to reach block ${chain.head.blockNumber}`, () => readHead(store)?.blockNumber === chain.head.blockNumber, 60_000).finally(() => indexer.stop())
    assert.ok(calls > 10, `many ranges (${calls})`)
    assert.equal(settlementsHash(store), await referenceHash(chain))
  })
  assert.deepEqual(
    committed.map((s) => s.ordinal),
    committed.map((_, i) => i + 1),
  )
})
