import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { Packr } from 'msgpackr'
import { storeContentHash, syntheticSteps } from '../../devnet/testing/index.js'
import { commitBatch, commitEncoded, type IndexingStep } from './commit-batch.js'
import { encodeBatch } from './encoded-batch.js'
import { readSettlement } from './covering-runs.js'
import { decodePk, indexValueOrdinal } from './keys.js'
import { openStore, type Store } from './open-store.js'
import { encodeRecord, toStored, type StoredSettlement } from './record.js'

async function withStore<T>(run: (store: Store) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-commit-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    return await run(store)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const steps = [...syntheticSteps(600, { payers: 8, recipients: 12, paidToPayerShare: 0.5 })]
const withTokens = (i: number, step: IndexingStep) => (i === 0 ? step : { ...step, tokens: undefined })

test('a record is the msgpack that msgpackr writes, at every width of its numbers and strings', () => {
  const packr = new Packr({ useRecords: false, moreTypes: false })
  const [record] = steps[0]!.records
  for (const n of [0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 1_700_000_000, 0xffff_ffff]) {
    for (const amount of [0n, 31n ** 20n, 10n ** 31n - 1n, 10n ** 31n, 2n ** 256n - 1n]) {
      const stored = toStored({ ...record!, amount, fee: amount, timestamp: n }, n)
      const expected = packr.pack([stored.timestamp, stored.ordinal, stored.amount, stored.fee, Buffer.from(stored.hex, 'hex')])
      assert.deepEqual(encodeRecord(stored), expected)
    }
  }
})

test('the same settlements make the same store whether committed one step at a time or many per transaction', async () => {
  const oneByOne = await withStore(async (store) => {
    for (const [i, step] of steps.entries()) await commitBatch(store, withTokens(i, step))
    return storeContentHash(store)
  })
  const grouped = await withStore(async (store) => {
    for (let i = 0; i < steps.length; i += 7) {
      const group = steps.slice(i, i + 7)
      await commitEncoded(
        store,
        group.map((s) => encodeBatch(s.records, s.blocks, s.head)),
        i === 0 ? steps[0]!.tokens : undefined,
      )
    }
    return storeContentHash(store)
  })
  assert.equal(grouped, oneByOne)
})

test('committed settlements come back as stored, numbered in chain order, and each index counts its key', async () => {
  await withStore(async (store) => {
    const committed: StoredSettlement[] = []
    for (let i = 0; i < steps.length; i += 50) {
      const group = steps.slice(i, i + 50)
      committed.push(...(await commitEncoded(store, group.map((s) => encodeBatch(s.records, s.blocks, s.head)), i === 0 ? steps[0]!.tokens : undefined)))
    }
    const records = steps.flatMap((s) => s.records)
    assert.deepEqual(committed, records.map((r, i) => toStored(r, i + 1)))
    const read = [...store.events.getKeys()].map((key) => readSettlement(store, key)!)
    assert.deepEqual(read, committed)

    const perPayer = new Map<string, number[]>()
    for (const { key, value } of store.indexes.payer.getRange()) {
      const ordinals = perPayer.get(key.toString('hex')) ?? []
      ordinals.push(indexValueOrdinal(value))
      perPayer.set(key.toString('hex'), ordinals)
      assert.ok(decodePk(value).blockNumber > 0)
    }
    for (const ordinals of perPayer.values()) assert.deepEqual(ordinals, ordinals.map((_, i) => i + 1))
    const selfPayments = records.filter((r) => r.payer === r.recipient).length
    assert.ok(selfPayments > 0)
    assert.equal([...store.indexes.selfPayment.getRange()].length, selfPayments)
  })
})
