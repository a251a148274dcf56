/**
 * Ending a worker pool only once every worker it started has loaded its module. A worker terminated
 * while it loads lmdb-js's native addon takes the whole process down (lmdb-js throws into the
 * terminating thread: "FATAL ERROR: Error::ThrowAsJavaScriptException", seen in CI when an explorer
 * was stopped a moment after its start). Each worker module counts itself in shared memory as its last
 * statement; `destroyWhenLoaded` waits for the count before the pool ends its threads.
 */
import { workerData } from 'node:worker_threads'
import type { Piscina } from 'piscina'

/** Given to the pool's workers in `workerData.loaded`. */
export const loadedCounter = () => new SharedArrayBuffer(4)

/** The worker's side, with the counter of its `workerData.loaded`: call once the module's imports are done (at its end). */
export function markLoaded(): void {
  Atomics.add(new Int32Array((workerData as { loaded: SharedArrayBuffer }).loaded), 0, 1)
}

/** Waits (at most `timeoutMs`) until as many workers have loaded as the pool has started, then destroys it. */
export async function destroyWhenLoaded(pool: Piscina, counter: SharedArrayBuffer, timeoutMs = 10_000): Promise<void> {
  const loaded = new Int32Array(counter)
  const deadline = Date.now() + timeoutMs
  while (Atomics.load(loaded, 0) < pool.threads.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  await pool.destroy()
}
