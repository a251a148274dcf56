/**
 * Where queries run: cheap ones on the calling thread, synchronously (see query-cost.ts); expensive
 * intersections in a Piscina pool, or inline too when `workers` is 0. With `inline: 'none'` every
 * query goes to the pool, and the calling thread only sends tasks and takes pages back. Each worker
 * takes many tasks in flight, since a message round trip costs more than a typical query (DESIGN.md:
 * ~7k tasks/s one at a time, ~25k/s with 32 in flight). Beyond those in flight, at most `maxQueue`
 * tasks wait; one more is refused at once (QueryPoolBusy), so a flood of slow queries costs a bounded
 * queue and a quick refusal, never a wait that grows with the flood.
 */
import { Piscina } from 'piscina'
import type { QueryInline } from '../../config/index.js'
import type { Store } from '../store/index.js'
import { isCheap } from './query-cost.js'
import { runQueryTask, type QueryTask } from './query-task.js'
import { createResultRings, type RingAnswer, type ResultRingsData } from './result-rings.js'
import { TokenCache } from './token-cache.js'
import { destroyWhenLoaded, loadedCounter } from '../../platform/workers/index.js'
import { BaseError } from '../../errors/index.js'

/** Tasks each worker holds in flight. */
const TASKS_PER_WORKER = 32

/**
 * The pool holds as many tasks as it may (QUERY_MAX_QUEUE waiting); trying again later can succeed.
 * One instance is thrown for every refusal: a flood is refused thousands of times a second, and each
 * new error would capture a stack (measured: 1.1 of 19 s of the server thread's busy time).
 */
export class QueryPoolBusy extends BaseError {
  override name = 'QueryPoolBusy'
  static readonly error = new QueryPoolBusy()

  private constructor() {
    super('the query pool holds as many queries as it may (QUERY_MAX_QUEUE waiting); retry later', { retryable: true })
  }
}

/** JSON bytes, or `undefined` when a lookup found nothing. */
export type QueryResult = Uint8Array | undefined

export interface QueryExecutor {
  /** A plain value when answered on this thread, a promise when a worker answers. */
  run(task: QueryTask): QueryResult | Promise<QueryResult>
  close(): Promise<void>
}

export interface QueryExecutorOptions {
  store: Store
  dataDir: string
  workers: number
  /** Intersections with more candidates than this go to the pool (default `INLINE_CANDIDATES`). */
  inlineCandidates?: number
  /** `none`: every task goes to the pool (when there is one), cheap or not. */
  inline?: QueryInline
  /** Tasks that may wait beyond those the workers hold (QUERY_MAX_QUEUE); unbounded without it. */
  maxQueue?: number
}

export function createQueryExecutor({ store, dataDir, workers, inlineCandidates, inline: which = 'cheap', maxQueue = Number.POSITIVE_INFINITY }: QueryExecutorOptions): QueryExecutor {
  const tokens = new TokenCache(store)
  const inline = (task: QueryTask) => runQueryTask(store, tokens, task)
  if (workers === 0) return { run: inline, close: async () => {} }
  const rings = createResultRings(workers)
  const loaded = loadedCounter()
  const pool = startQueryPool(dataDir, workers, rings.data, loaded)
  const capacity = workers * TASKS_PER_WORKER + maxQueue
  let held = 0
  const pooled = async (task: QueryTask): Promise<QueryResult> => {
    if (held >= capacity) throw QueryPoolBusy.error
    held++
    try {
      return rings.take((await pool.run(task)) as RingAnswer)
    } finally {
      held--
    }
  }
  return {
    run: which === 'none' ? pooled : (task) => (isCheap(store, task, inlineCandidates) ? inline(task) : pooled(task)),
    close: () => destroyWhenLoaded(pool, loaded),
  }
}

/** Workers answer through `rings`, and count themselves in `loaded` (platform/workers). */
function startQueryPool(dataDir: string, workers: number, rings: ResultRingsData, loaded: SharedArrayBuffer): Piscina {
  return new Piscina({
    filename: workerFile().href,
    minThreads: workers,
    maxThreads: workers,
    concurrentTasksPerWorker: TASKS_PER_WORKER,
    idleTimeout: Number.POSITIVE_INFINITY,
    workerData: { dataDir, rings, loaded },
  })
}

/**
 * The worker module beside this one: `query-worker.ts` under tsx, `query-worker.js` in a build, where
 * every bundle and chunk sits flat in `dist/` next to the worker's own entry (scripts/build.ts).
 */
function workerFile(): URL {
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`./query-worker${extension}`, import.meta.url)
}
