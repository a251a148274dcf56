/**
 * Where queries run: in a Piscina pool (the default), or inline on the calling thread when
 * `workers` is 0. Each worker takes many tasks in flight, since a message round trip costs more
 * than a typical query (DESIGN.md: ~7k tasks/s one at a time, ~25k/s with 32 in flight).
 */
import { Piscina } from 'piscina'
import type { Store } from '../store/open-store.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { TokenCache } from './token-cache.js'

export interface QueryExecutor {
  run(task: QueryTask): Promise<string | undefined>
  close(): Promise<void>
}

export function createQueryExecutor({ store, dataDir, workers }: { store: Store; dataDir: string; workers: number }): QueryExecutor {
  if (workers === 0) {
    const tokens = new TokenCache(store)
    return { run: async (task) => runQueryTask(store, tokens, task), close: async () => {} }
  }
  const pool = new Piscina({
    filename: new URL('./query-worker.ts', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    concurrentTasksPerWorker: 32,
    idleTimeout: Number.POSITIVE_INFINITY,
    workerData: { dataDir },
  })
  return {
    run: (task) => pool.run(task) as Promise<string | undefined>,
    close: () => pool.destroy(),
  }
}
