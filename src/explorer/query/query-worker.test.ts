/**
 * A query worker never keeps a read transaction between tasks: an open one pins its snapshot, and
 * LMDB then cannot reuse any page freed after it, so the file grows with every commit.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticRecipient, syntheticSteps } from '../../../test/helpers/synthetic-settlements.js'
import { commitBatch, openStore, type Store } from '../store/index.js'
import { createQueryExecutor } from './query-executor.js'

/** The environment's reader slots (one per thread that has read), each with the snapshot it holds or '-'. */
function readers(store: Store): string[] {
  const list = (store.env as unknown as { readerList(): string }).readerList()
  return list
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[2])
    .filter((txn): txn is string => txn !== undefined)
}

/** The snapshots (transaction ids) readers hold; readers between transactions are left out. */
const heldSnapshots = (store: Store) => readers(store).filter((txn) => txn !== '-').map(Number)

const lastTxnId = (store: Store) => (store.env.getStats() as { lastTxnId: number }).lastTxnId
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('the worker holds no snapshot once started, nor after a task, while commits go on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-worker-'))
  const store = openStore({ path: dir, noSync: true })
  const steps = [...syntheticSteps(2000, { payers: 20, recipients: 10 })]
  await commitBatch(store, steps[0]!)
  for (const _ of store.events.getKeys({ limit: 1 })) break
  const before = readers(store).length
  const executor = createQueryExecutor({ store, dataDir: dir, workers: 1, inline: 'none' })
  try {
    // The worker reads the token list as it starts, which gives it a reader slot of its own.
    for (let waited = 0; readers(store).length === before && waited < 20_000; waited += 50) await sleep(50)
    assert.ok(readers(store).length > before, 'the worker has read the store')
    for (const step of steps.slice(1, steps.length / 2)) await commitBatch(store, step)
    store.env.resetReadTxn()
    assert.deepEqual(heldSnapshots(store), [], 'no reader holds a snapshot after the worker started')

    const page = await executor.run({ kind: 'events', query: { order: 'desc', limit: 5, recipient: syntheticRecipient(1) } })
    assert.ok(page && page.length > 0)
    for (const step of steps.slice(steps.length / 2)) await commitBatch(store, step)
    store.env.resetReadTxn()
    assert.deepEqual(heldSnapshots(store), [], `no reader holds a snapshot after a task (last transaction ${lastTxnId(store)})`)
  } finally {
    await executor.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
