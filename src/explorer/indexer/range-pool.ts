/**
 * The indexing pool (DESIGN.md: indexing work in a Piscina pool): backfill ranges fetched, decoded
 * and encoded by `range-worker.ts` threads, two ranges in flight per thread, so that one waits on
 * the node while another is parsed.
 */
import { Piscina } from 'piscina'
import type { EncodedBatch } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import type { RpcEndpoints } from '../../config/index.js'
import type { RangeTask } from './range-worker.js'
import { destroyWhenLoaded, loadedCounter } from '../../platform/workers/index.js'

export interface RangePool {
  fetch(from: number, to: number): Promise<EncodedBatch>
  close(): Promise<void>
}

export function createRangePool({ endpoints, chainId, contract, workers }: { endpoints: RpcEndpoints; chainId: number; contract: Hex; workers: number }): RangePool {
  const loaded = loadedCounter()
  const pool = new Piscina({
    filename: workerFile().href,
    // Started on the first range rather than with the explorer: a restart near the head needs none.
    minThreads: 0,
    maxThreads: workers,
    concurrentTasksPerWorker: 2,
    idleTimeout: Number.POSITIVE_INFINITY,
    workerData: { loaded },
  })
  return {
    fetch: (from, to) => pool.run({ endpoints, chainId, contract, from, to } satisfies RangeTask) as Promise<EncodedBatch>,
    close: () => destroyWhenLoaded(pool, loaded),
  }
}

/** `range-worker.ts` under tsx, `range-worker.js` beside the bundle in a build (scripts/build/build-pieces.ts). */
function workerFile(): URL {
  return new URL(`./range-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url)
}
