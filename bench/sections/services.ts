/**
 * Starting the processes a section measures: the fake RPC node and the real explorer over a data
 * directory, each in its own process, configured through the environment like `npm run explorer`.
 */
import { mkdirSync } from 'node:fs'
import type { Hex } from '../../src/wire/index.js'
import { BENCH_CHAIN_ID } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { startChild, type BenchChild } from '../lib/child.js'

export interface RpcReady {
  url: string
  head: number
  count: number
}

export interface ExplorerReady {
  url: string
  startMs: number
  sinceProcessStartMs: number
}

export type RpcChild = BenchChild<RpcReady>
export type ExplorerChild = BenchChild<ExplorerReady>

export function startRpc(options: { seed: number; settlements: number; logCap?: number; logTimestamps?: boolean }): Promise<RpcChild> {
  return startChild<RpcReady>('rpc/rpc-process.ts', { args: [JSON.stringify(options)] })
}

/** A JSON-RPC call to the fake node (its `bench_*` methods among them). */
export async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await response.json()) as { result: unknown }).result
}

/** Makes the fake node's chain grow from now on (0 stops it): block `head` + k appears at `at` + k / rate seconds (wall clock, ms). */
export async function growChain(rpc: RpcChild, blocksPerSecond: number): Promise<{ head: number; at: number }> {
  return (await rpcCall(rpc.ready.url, 'bench_grow', [blocksPerSecond])) as { head: number; at: number }
}

/** Server threads of the sections' second pass (SERVER_THREADS): this machine's cores, which the load generators share. */
export const SERVER_THREADS = 2

export function startExplorerChild(options: {
  dataDir: string
  rpcUrl: string
  queryWorkers?: number
  pollIntervalMs?: number
  contract?: Hex
  env?: Record<string, string>
  execArgv?: string[]
}): Promise<ExplorerChild> {
  return startChild<ExplorerReady>('explorer/explorer-process.ts', {
    execArgv: options.execArgv,
    env: {
      CHAIN_ID: String(BENCH_CHAIN_ID),
      RPC_URL: options.rpcUrl,
      SETTLEMENT_CONTRACT: options.contract ?? BENCH_CONTRACT,
      DEPLOYMENT_FILE: '/nonexistent/deployment.json',
      DATA_DIR: options.dataDir,
      EXPLORER_PORT: '0',
      QUERY_WORKERS: String(options.queryWorkers ?? 1),
      POLL_INTERVAL_MS: String(options.pollIntervalMs ?? 200),
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  })
}

/**
 * The explorer's resident memory, and its anonymous part (the heap, caches, workers' memory: what the
 * process owns) apart from the LMDB map's file pages (the kernel's page cache, shared and reclaimable).
 */
export async function rssOf(explorer: ExplorerChild): Promise<{ rss: number; maxRss: number; anon: number; memory: NodeJS.MemoryUsage }> {
  const { memory, maxRssBytes, rssAnonBytes } = await explorer.ask<{ memory: NodeJS.MemoryUsage; maxRssBytes: number; rssAnonBytes: number }>({ type: 'memory' })
  return { rss: memory.rss, maxRss: maxRssBytes, anon: rssAnonBytes, memory }
}

/** `rssOf`'s figures as one line of MB. */
export function memoryLine({ rss, maxRss, anon, memory }: Awaited<ReturnType<typeof rssOf>>): string {
  const mb = (bytes: number) => Math.round(bytes / 1024 ** 2)
  return (
    `${mb(rss)} MB (peak ${mb(maxRss)} MB) = anonymous ${mb(anon)} MB (main thread's JS heap ${mb(memory.heapUsed)} of ${mb(memory.heapTotal)} MB, ` +
    `buffers ${mb(memory.arrayBuffers)} MB, the rest the workers' heaps and native memory) + file pages ${mb(rss - anon)} MB (the LMDB map, page cache)`
  )
}

/** Runs `work` with the explorer's main thread profiled; the profile lands in `dir`. */
export async function profiled<T>(explorer: ExplorerChild, dir: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true })
  await explorer.ask({ type: 'profileStart' })
  try {
    return await work()
  } finally {
    await explorer.ask({ type: 'profileStop', path: `${dir}/main.cpuprofile` })
  }
}
