import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticSteps } from '../../devnet/testing/index.js'
import { commitBatch } from './commit-batch.js'
import { readRecord } from './covering-runs.js'
import { openStore } from './open-store.js'
import { RecordGroup } from './record-group.js'

test('a group gives every settlement added its own record, by the position it was added at, each run read once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-group-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    for (const step of syntheticSteps(700, { recipients: 9 })) await commitBatch(store, step)
    // Every other settlement, newest first, added partly by key and partly by pointer.
    const entries = [...store.events.getRange({ reverse: true })].filter((_, i) => i % 2 === 0)
    const group = new RecordGroup(entries.length)
    entries.forEach(({ key, value }, i) => (i % 3 === 0 ? group.addPointer(value) : group.add(store, key)))
    assert.ok(group.full)
    const seen: Buffer[] = []
    let runsRead = 0
    const getBinaryFast = store.runs.getBinaryFast.bind(store.runs)
    store.runs.getBinaryFast = (key: Buffer) => (runsRead++, getBinaryFast(key))
    group.visit(store, (i, record) => {
      assert.equal(seen[i], undefined, 'each position once')
      seen[i] = Buffer.from(record)
    })
    store.runs.getBinaryFast = getBinaryFast
    assert.equal(group.size, 0, 'a visit empties the group')
    entries.forEach(({ key }, i) => assert.deepEqual(seen[i], Buffer.from(readRecord(store, key)!), `settlement ${i}`))
    assert.ok(runsRead <= [...store.runs.getKeys()].length, `${runsRead} run reads`)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
