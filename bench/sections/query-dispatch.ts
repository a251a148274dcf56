/**
 * What moving a query from the server thread to the pool costs and leaves there, for the cores
 * projection of the HTTP section: the same `/events` tasks run once in this process (the query's own
 * CPU) and once through the explorer's query executor with every task in the pool (`inline: 'none'`,
 * one worker, 32 tasks in flight),
 * timing this process's main thread (what the uWS thread would pay per answer: the structured clone
 * out, the page's bytes back, the promise) and every other thread (the worker: the query plus its side
 * of the exchange). CPU per task from /proc at the kernel's 10 ms tick, over several thousand tasks.
 */
import type { EventsQuery } from '../../src/explorer/query/index.js'
import { createQueryExecutor, type QueryExecutor } from '../../src/explorer/query/index.js'
import { runQueryTask, type QueryTask } from '../../src/explorer/query/index.js'
import { TokenCache } from '../../src/explorer/query/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { cpuSeconds, threadCpuSeconds } from '../lib/proc.js'

export interface DispatchCost {
  tasks: number
  /** In this process, one at a time: the query alone. */
  inlineUs: number
  /** Through the pool: this (the server's) thread per task, and all other threads per task. */
  mainUs: number
  workerUs: number
  /** What the exchange adds in the worker beyond the query itself: `workerUs − inlineUs`. */
  workerOverheadUs: number
}

const IN_FLIGHT = 32

export async function measureDispatch(dataDir: string, queries: EventsQuery[]): Promise<DispatchCost> {
  const tasks: QueryTask[] = queries.map((query) => ({ kind: 'events', query }))
  const store = openStore({ path: dataDir })
  const tokens = new TokenCache(store)
  const pool = createQueryExecutor({ store, dataDir, workers: 1, inline: 'none' })
  try {
    // Warm both sides (JIT, the worker) before timing, and map every page the tasks read: the worker is
    // a thread of this process, so a page the timed inline pass faulted in first would be free to the
    // pool's pass after it (at 10M the pool then measured below the query alone).
    for (const task of tasks) runQueryTask(store, tokens, task)
    await throughPool(pool, tasks.slice(0, 2000))

    const inlineStart = threadCpuSeconds(process.pid)
    for (const task of tasks) runQueryTask(store, tokens, task)
    const inlineUs = ((threadCpuSeconds(process.pid) - inlineStart) * 1e6) / tasks.length

    const mainStart = threadCpuSeconds(process.pid)
    const allStart = cpuSeconds(process.pid)
    await throughPool(pool, tasks)
    const mainUs = ((threadCpuSeconds(process.pid) - mainStart) * 1e6) / tasks.length
    const workerUs = ((cpuSeconds(process.pid) - allStart) * 1e6) / tasks.length - mainUs
    return { tasks: tasks.length, inlineUs, mainUs, workerUs, workerOverheadUs: workerUs - inlineUs }
  } finally {
    await pool.close()
    await store.close()
  }
}

async function throughPool(pool: QueryExecutor, tasks: QueryTask[]): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < tasks.length) await pool.run(tasks[next++]!)
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
}
