/**
 * A Piscina worker: opens the store once, on its first task (lmdb-js shares the environment with the
 * main thread), and answers query tasks with JSON text, handed back through its ring of shared slots
 * (result-rings.ts).
 */
import { workerData } from 'node:worker_threads'
import { openStore, type Store } from '../store/index.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { RingWriter, type RingAnswer, type ResultRingsData } from './result-rings.js'
import { TokenCache } from './token-cache.js'
import { markLoaded } from '../../platform/workers/index.js'

const data = workerData as { dataDir: string; rings: ResultRingsData }
const ring = new RingWriter(data.rings)
/**
 * Opened by the first task, not as the worker loads: a pool ended while a worker is still opening the
 * store aborts the whole process (lmdb-js throws into the terminating thread), as an explorer stopped
 * a second after its start did.
 */
let opened: { store: Store; tokens: TokenCache } | undefined

export default function answerTask(task: QueryTask): RingAnswer {
  const { store, tokens } = (opened ??= open())
  try {
    return ring.answer(runQueryTask(store, tokens, task))
  } finally {
    // Piscina parks an idle worker in Atomics.wait, where lmdb-js's timer that ends a read transaction
    // never fires: the worker ends its own. A transaction left open pins its snapshot, LMDB cannot reuse
    // any page freed after it, and data.mdb grows with every commit (seen: 36 GB of file during a 10M
    // backfill that fits in 6.5 GB); and the next task would read that old snapshot.
    store.env.resetReadTxn()
  }
}

function open() {
  const store = openStore({ path: data.dataDir })
  return { store, tokens: new TokenCache(store) }
}

// Last: the pool may end this thread from now on (platform/workers).
markLoaded()
