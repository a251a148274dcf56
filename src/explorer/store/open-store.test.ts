import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticPayer, syntheticSteps } from '../../devnet/testing/index.js'
import { commitBatch } from './commit-batch.js'
import { encodeHexKey } from './keys.js'
import { openStore } from './open-store.js'

test("an index value read with get() is the value's own bytes, not lmdb-js's whole read buffer", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-open-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    for (const step of syntheticSteps(300, { payers: 8, recipients: 12 })) await commitBatch(store, step)
    // A large value grows the shared buffer lmdb-js reads into; the index values after it must not take its size.
    store.meta.putSync('large', 'x'.repeat(200_000))
    assert.equal((store.meta.get('large') as string).length, 200_000)
    const value = store.indexes.payer.get(encodeHexKey(syntheticPayer(3)))
    assert.ok(value, 'payer 3 has settlements')
    assert.ok(value.length <= 16, `an index value is primary key and ordinal, got ${value.length} bytes`)
    assert.deepEqual(value, [...store.indexes.payer.getValues(encodeHexKey(syntheticPayer(3)))][0])
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
