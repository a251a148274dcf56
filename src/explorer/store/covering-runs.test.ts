import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticSteps } from '../../devnet/testing/index.js'
import { commitBatch } from './commit-batch.js'
import { readRecord, RunReader } from './covering-runs.js'
import { findId } from './dictionary.js'
import { encodeBareHexKey, encodeRunKey, indexValueOrdinal, indexValuePk, RUN_LENGTH } from './keys.js'
import { openStore, type Store } from './open-store.js'

async function withStore(run: (store: Store) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-runs-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    await run(store)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

test("each recipient's runs hold its settlements in ordinal order, each record where the primary database points", async () => {
  await withStore(async (store) => {
    for (const step of syntheticSteps(900, { recipients: 7 })) await commitBatch(store, step)
    let checked = 0
    for (const recipient of store.indexes.recipient.getKeys()) {
      const runs = new RunReader(store, recipient)
      for (const value of store.indexes.recipient.getValues(recipient)) {
        const entry = runs.at(indexValueOrdinal(value))!
        assert.deepEqual(entry.pk, indexValuePk(value))
        assert.deepEqual(Buffer.from(entry.record()), Buffer.from(readRecord(store, indexValuePk(value))!))
        checked++
      }
      assert.equal(runs.at(store.indexes.recipient.getValuesCount(recipient) + 1), undefined)
    }
    assert.equal(checked, 900)
    assert.ok([...store.runs.getKeys()].length >= 900 / RUN_LENGTH, 'several runs per recipient')
  })
})

test('readers of two recipients taking turns each read their own run again (the thread shares one run buffer)', async () => {
  await withStore(async (store) => {
    for (const step of syntheticSteps(200, { recipients: 2 })) await commitBatch(store, step)
    const [a, b] = [...store.indexes.recipient.getKeys()] as Buffer[]
    const readers = [new RunReader(store, a!), new RunReader(store, b!)]
    const values = [a!, b!].map((recipient) => [...store.indexes.recipient.getValues(recipient)] as Buffer[])
    for (let i = 0; i < 20; i++) {
      for (const side of [0, 1]) {
        const value = values[side]![i]!
        const entry = readers[side]!.at(indexValueOrdinal(value))!
        assert.deepEqual(entry.pk, indexValuePk(value))
        assert.deepEqual(Buffer.from(entry.record()), Buffer.from(readRecord(store, indexValuePk(value))!))
      }
    }
  })
})

test('a commit that would append to a missing run fails, naming the run', async () => {
  await withStore(async (store) => {
    const [first, ...rest] = [...syntheticSteps(300, { recipients: 1 })]
    await commitBatch(store, first!)
    const recipient = first!.records[0]!.recipient
    const count = store.indexes.recipient.getValuesCount(encodeBareHexKey(recipient.slice(2)))
    assert.ok(count % RUN_LENGTH !== 0, 'the last run is partly filled')
    await store.runs.remove(encodeRunKey(findId(store, 'recipient', encodeBareHexKey(recipient.slice(2)))!, Math.floor((count - 1) / RUN_LENGTH)))
    await assert.rejects(commitBatch(store, rest[0]!), /run \d+ of recipient id \d+ is missing/)
  })
})
