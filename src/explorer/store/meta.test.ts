import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticSteps } from '../../devnet/testing/index.js'
import { commitBatch } from './commit-batch.js'
import { STORE_LAYOUT, claimLayout, readLayout } from './meta.js'
import { openStore, type Store } from './open-store.js'

async function withStore(run: (store: Store, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-meta-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    await run(store, dir)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

test('a new store takes the current layout, and the first settlements stamp it too', async () => {
  await withStore(async (store, dir) => {
    claimLayout(store, dir)
    assert.equal(readLayout(store), STORE_LAYOUT)
  })
  await withStore(async (store, dir) => {
    for (const step of syntheticSteps(5)) await commitBatch(store, step)
    assert.equal(readLayout(store), STORE_LAYOUT)
    assert.doesNotThrow(() => claimLayout(store, dir))
  })
})

test('settlements written with an older layout are refused, naming the directory and what the layout lacks', async () => {
  await withStore(async (store, dir) => {
    for (const step of syntheticSteps(5)) await commitBatch(store, step)
    await store.meta.remove('layout')
    const needs = new RegExp(`layout 1\\b.*layout ${STORE_LAYOUT}\\b.*self-payment index.*statistics buckets.*amount index`)
    assert.throws(() => claimLayout(store, dir), (error: Error) => error.message.includes(dir) && needs.test(error.message))
  })
  await withStore(async (store, dir) => {
    for (const step of syntheticSteps(5)) await commitBatch(store, step)
    await store.meta.put('layout', 2)
    assert.throws(() => claimLayout(store, dir), (error: Error) => /layout 2\b.*statistics buckets/.test(error.message) && !error.message.includes('self-payment'))
    await store.meta.put('layout', 3)
    assert.throws(() => claimLayout(store, dir), (error: Error) => /layout 3\b.*amount index/.test(error.message) && !error.message.includes('statistics buckets'))
    await store.meta.put('layout', 4)
    assert.throws(() => claimLayout(store, dir), (error: Error) => /layout 4\b.*amount classes/.test(error.message) && !error.message.includes('amount index'))
  })
})
