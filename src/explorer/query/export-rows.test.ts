import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { syntheticPayer, syntheticRecipient, syntheticSteps, syntheticToken } from '../../devnet/testing/index.js'
import { commitBatch } from '../store/commit-batch.js'
import { openStore, type Store } from '../store/open-store.js'
import type { SettlementRecord } from '../store/record.js'
import type { EventsQuery } from './events-query.js'
import { openExport } from './export-rows.js'
import { TokenCache } from './token-cache.js'

const options = { payers: 40, recipients: 15, tokens: 3, paidToPayerShare: 0.3 }
let dir: string
let store: Store
let tokens: TokenCache
const records: SettlementRecord[] = []
/** Blocks of settlements: the first 1,500 settlements before the exports, the rest while they run. */
const steps = [...syntheticSteps(4000, options)]
let committed = 0

/** Commits the next block of `steps`; false once all are in. */
async function commitNext(): Promise<boolean> {
  const step = steps[committed++]
  if (!step) return false
  records.push(...step.records)
  await commitBatch(store, { ...step, tokens: committed === 1 ? Array.from({ length: 3 }, (_, t) => ({ address: syntheticToken(t), symbol: `TK${t}`, decimals: 6 })) : [] })
  return true
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'explorer-export-'))
  store = openStore({ path: dir, noSync: true })
  tokens = new TokenCache(store)
  while (records.length < 1500) await commitNext()
})

after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const matches = (q: EventsQuery) => (r: SettlementRecord) =>
  (!q.token || r.token === q.token) && (!q.recipient || r.recipient === q.recipient) && (!q.payer || r.payer === q.payer) && (!q.address || r.payer === q.address || r.recipient === q.address)

describe('an export read a row or a few candidates at a time while blocks keep arriving', () => {
  const cases: [string, Omit<EventsQuery, 'limit' | 'order'>][] = [
    ['no filter', {}],
    ['token', { token: syntheticToken(1) }],
    ['token + recipient (sparse: most chunks read no row)', { token: syntheticToken(0), recipient: syntheticRecipient(4) }],
    ['address (two indexes merged)', { address: syntheticPayer(3) }],
  ]
  for (const [name, filters] of cases) {
    for (const order of ['asc', 'desc'] as const) {
      test(`${name}, ${order}: every settlement up to the head at the start, once, in order; none committed after`, async () => {
        const q: EventsQuery = { ...filters, order, limit: 20 }
        const head = records.at(-1)!.blockNumber
        const want = records.filter(matches(q)).map((r) => `${r.blockNumber}:${r.logIndex}`)
        if (order === 'desc') want.reverse()
        const walk = openExport(store, tokens, q, 'ndjson')
        assert.equal(walk.head, head)
        const got: string[] = []
        for (let chunks = 0; ; chunks++) {
          assert.ok(chunks < 20_000, 'the walk ends')
          // One row (or at most 3 candidates) a chunk; a block committed after every 10th chunk.
          const chunk = walk.next(1, 3)
          if (!chunk) break
          for (const line of chunk.toString().split('\n').filter(Boolean)) {
            const e = JSON.parse(line) as { blockNumber: number; logIndex: number }
            got.push(`${e.blockNumber}:${e.logIndex}`)
          }
          if (chunks % 10 === 0) await commitNext()
        }
        assert.deepEqual(got, want)
        assert.equal(walk.rows, want.length)
      })
    }
  }
})
