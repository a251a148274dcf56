/**
 * A Piscina worker: opens the store once (lmdb-js shares the environment with the main thread) and
 * answers query tasks with JSON text, which crosses back as one string.
 */
import { workerData } from 'node:worker_threads'
import { openStore } from '../store/index.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { TokenCache } from './token-cache.js'

const store = openStore({ path: (workerData as { dataDir: string }).dataDir })
const tokens = new TokenCache(store)

export default function answer(task: QueryTask): Uint8Array | undefined {
  // Piscina parks idle workers in Atomics.wait, so lmdb-js's timer that ends a read transaction never
  // fires here: without a reset each task would read the snapshot of the first one.
  store.env.resetReadTxn()
  const result = runQueryTask(store, tokens, task)
  // A page is a view of a larger slab (run-events-query.ts), which posting would copy whole.
  return result && Uint8Array.prototype.slice.call(result)
}
