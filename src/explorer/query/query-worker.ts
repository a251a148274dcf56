/**
 * A Piscina worker: opens the store once (lmdb-js shares the environment with the main thread) and
 * answers query tasks with JSON text, handed back through its ring of shared slots (result-rings.ts).
 */
import { workerData } from 'node:worker_threads'
import { openStore } from '../store/index.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { RingWriter, type RingAnswer, type ResultRingsData } from './result-rings.js'
import { TokenCache } from './token-cache.js'

const data = workerData as { dataDir: string; rings: ResultRingsData }
const store = openStore({ path: data.dataDir })
const tokens = new TokenCache(store)
const ring = new RingWriter(data.rings)
// Piscina parks an idle worker in Atomics.wait, where lmdb-js's timer that ends a read transaction
// never fires: the worker ends its own, here and after each task. A transaction left open pins its
// snapshot, LMDB cannot reuse any page freed after it, and data.mdb grows with every commit (seen:
// 36 GB of file during a 10M backfill that fits in 6.5 GB); and the next task would read that old snapshot.
store.env.resetReadTxn()

export default function answerTask(task: QueryTask): RingAnswer {
  try {
    return ring.answer(runQueryTask(store, tokens, task))
  } finally {
    store.env.resetReadTxn()
  }
}
