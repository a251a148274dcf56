/**
 * A query worker never keeps a read transaction between tasks: an open one pins its snapshot, and
 * LMDB then cannot reuse any page freed after it, so the file grows with every commit.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticRecipient, syntheticSteps } from '../../devnet/testing/index.js'
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

test('the worker holds no snapshot after a task while commits go on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-worker-'))
  const store = openStore({ path: dir, noSync: true })
  const steps = [...syntheticSteps(2000, { payers: 20, recipients: 10 })]
  await commitBatch(store, steps[0]!)
  const executor = createQueryExecutor({ store, dataDir: dir, workers: 1, inline: 'none' })
  try {
    for (const round of [1, 2]) {
      const page = await executor.run({ kind: 'events', query: { order: 'desc', limit: 5, recipient: syntheticRecipient(round) } })
      assert.ok(page && page.length > 0)
      for (const step of steps.slice(round === 1 ? 1 : steps.length / 2, round === 1 ? steps.length / 2 : steps.length)) await commitBatch(store, step)
      store.env.resetReadTxn()
      assert.ok(readers(store).length >= 2, 'the worker has a reader slot of its own')
      assert.deepEqual(heldSnapshots(store), [], `no reader holds a snapshot after task ${round} (last transaction ${lastTxnId(store)})`)
    }
  } finally {
    await executor.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
