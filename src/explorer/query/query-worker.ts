/**
 * A Piscina worker: opens the store once (lmdb-js shares the environment with the main thread) and
 * answers query tasks with JSON text, handed back through its ring of shared slots (result-rings.ts).
 */
import { workerData } from 'node:worker_threads'
import { move } from 'piscina'
import { openStore } from '../store/index.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { RingWriter, type RingAnswer, type ResultRingsData } from './result-rings.js'
import { TokenCache } from './token-cache.js'

const data = workerData as { dataDir: string; rings: ResultRingsData }
const store = openStore({ path: data.dataDir })
const tokens = new TokenCache(store)
const ring = new RingWriter(data.rings)

export default function answerTask(task: QueryTask): RingAnswer {
  // Piscina parks idle workers in Atomics.wait, so lmdb-js's timer that ends a read transaction never
  // fires here: without a reset each task would read the snapshot of the first one.
  store.env.resetReadTxn()
  const answer = ring.answer(runQueryTask(store, tokens, task))
  return answer instanceof Uint8Array ? (move(answer) as Uint8Array) : answer
}
