/**
 * Settlement writes (commitBatch, rollbackAbove) counted per store, started and settled. lmdb-js
 * commits on its write thread, so a fresh read may see a write before its promise resolves and the
 * indexer reports it: between a write's start and its settling, what readers see can change at any
 * moment. The page cache stands aside while a write is in flight (api/rest/page-cache.ts); the
 * report follows the settling within the same event-loop turn (the indexer's continuation).
 *
 * Server threads (explorer/server-threads) read the same store without writing it: the writing
 * thread keeps its counts in shared memory, and a serving thread's caches also stand aside from a
 * write's settling until the thread has applied the report of it (`followWriteCounts`).
 */
import type { Store } from './open-store.js'

export interface WriteCounts {
  started: number
  settled: number
}

const counts = new WeakMap<Store, WriteCounts>()

export function settlementWrites(store: Store): WriteCounts {
  let c = counts.get(store)
  if (!c) counts.set(store, (c = { started: 0, settled: 0 }))
  return c
}

export async function countedWrite<T>(store: Store, write: () => Promise<T>): Promise<T> {
  const c = settlementWrites(store)
  c.started++
  try {
    return await write()
  } finally {
    c.settled++
  }
}

/** Writes started, writes settled, and the settled count stamped on the last report sent to serving threads. */
const STARTED = 0
const SETTLED = 1
const REPORTED = 2

/** The writing thread's counts, moved into shared memory for serving threads to follow (only this thread writes them); `reported()` stamps a report. */
export function shareWriteCounts(store: Store): { memory: SharedArrayBuffer; reported(): number } {
  const memory = new SharedArrayBuffer(3 * 4)
  const shared = new Int32Array(memory)
  const now = settlementWrites(store)
  Atomics.store(shared, STARTED, now.started)
  Atomics.store(shared, SETTLED, now.settled)
  counts.set(store, {
    get started() {
      return Atomics.load(shared, STARTED)
    },
    set started(n) {
      Atomics.store(shared, STARTED, n)
    },
    get settled() {
      return Atomics.load(shared, SETTLED)
    },
    set settled(n) {
      Atomics.store(shared, SETTLED, n)
    },
  })
  return {
    memory,
    /** Stamps a report with the writes settled so far; call it before anyone is told what the report says. */
    reported() {
      const settled = Atomics.load(shared, SETTLED)
      Atomics.store(shared, REPORTED, settled)
      return settled
    },
  }
}

/**
 * A serving thread's view of the writing thread's counts: no write is in flight only when none has
 * started unsettled and this thread has applied the last report sent (`applied()`: the highest stamp
 * it has taken in, reports applied or the start). `readStart` reads what the thread starts from (the
 * live hub's published end) while no write is in flight; the returned stamp says which reports that
 * read already holds (those stamped at or below it).
 */
export function followWriteCounts(store: Store, memory: SharedArrayBuffer, applied: () => number, readStart: () => void): number {
  const shared = new Int32Array(memory)
  counts.set(store, {
    get started() {
      return Atomics.load(shared, STARTED)
    },
    get settled() {
      return applied() >= Atomics.load(shared, REPORTED) ? Atomics.load(shared, SETTLED) : -1
    },
  } as WriteCounts)
  for (;;) {
    const settled = Atomics.load(shared, SETTLED)
    if (Atomics.load(shared, STARTED) !== settled) {
      Atomics.wait(shared, SETTLED, settled, 5)
      continue
    }
    // A fresh snapshot for each try: lmdb-js keeps a thread's read transaction for the rest of its turn.
    store.env.resetReadTxn()
    readStart()
    if (Atomics.load(shared, STARTED) === settled) return settled
  }
}
