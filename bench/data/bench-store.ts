/**
 * Stores of N synthetic settlements for the benchmarks, written through `commitBatch` (the indexer's
 * only write path) and cached under `.data/bench/` by size, seed and a hash of the store's source
 * (`src/store/`), so reruns skip the build and a change of layout or encoding rebuilds. A marker file
 * is written last: a build that was interrupted is thrown away and redone.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { commitBatch } from '../../src/store/commit-batch.js'
import { claimIdentity } from '../../src/store/meta.js'
import { openStore } from '../../src/store/open-store.js'
import { BENCH_CONTRACT, SyntheticChain, tokenInfoOf } from './synthetic-chain.js'

export const BENCH_CHAIN_ID = 31337
export const BENCH_DIR = '.data/bench'
/** A generous estimate, used only to refuse a build that cannot fit on the disk. */
const BYTES_PER_SETTLEMENT_ESTIMATE = 1200

export interface BenchStore {
  path: string
  count: number
  head: number
  /** How long the build took when it ran (settlements/s through commitBatch alone). */
  buildSeconds: number
  buildRate: number
  cached: boolean
}

interface Marker {
  count: number
  head: number
  buildSeconds: number
  buildRate: number
}

export async function ensureBenchStore(chain: SyntheticChain, settlements: number, log: (line: string) => void): Promise<BenchStore> {
  const path = join(BENCH_DIR, `store-${settlements}-s${chain.shape.seed}-${storeCodeHash()}`)
  const markerPath = join(path, 'bench-store.json')
  if (existsSync(markerPath)) {
    const marker = JSON.parse(readFileSync(markerPath, 'utf8')) as Marker
    return { path, ...marker, cached: true }
  }
  rmSync(path, { recursive: true, force: true })
  const free = freeBytes(BENCH_DIR)
  const needed = settlements * BYTES_PER_SETTLEMENT_ESTIMATE
  if (free < needed) throw new Error(`building ${settlements} settlements needs about ${gb(needed)} GB; ${BENCH_DIR} has ${gb(free)} GB free`)

  log(`building a store of ${settlements} settlements in ${path} (${gb(free)} GB free)`)
  const { head, count } = chain.headFor(settlements)
  const store = openStore({ path, noSync: true })
  await claimIdentity(store, { chainId: BENCH_CHAIN_ID, contract: BENCH_CONTRACT })
  const started = performance.now()
  let written = 0
  let lastLog = started
  let first = true
  for (const step of chain.steps(0, head, 10_000)) {
    if (first) step.tokens = Array.from({ length: chain.shape.tokens }, (_, i) => tokenInfoOf(i))
    first = false
    written += (await commitBatch(store, step)).length
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now()
      log(`  ${written} / ${count} (${Math.round(written / ((lastLog - started) / 1000))} settlements/s)`)
    }
  }
  await store.env.flushed
  await store.close()
  const buildSeconds = (performance.now() - started) / 1000
  const marker: Marker = { count: written, head, buildSeconds, buildRate: Math.round(written / buildSeconds) }
  writeFileSync(markerPath, JSON.stringify(marker))
  log(`  built ${written} settlements in ${buildSeconds.toFixed(1)} s`)
  return { path, ...marker, cached: false }
}

/** Changes whenever the code that lays out or encodes the store changes. */
function storeCodeHash(): string {
  const dir = new URL('../../src/store/', import.meta.url)
  const hash = createHash('sha256')
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts')).sort()) {
    hash.update(name).update(readFileSync(new URL(name, dir)))
  }
  return hash.digest('hex').slice(0, 8)
}

function freeBytes(dir: string): number {
  const probe = existsSync(dir) ? dir : '.'
  const s = statfsSync(probe)
  return s.bavail * s.bsize
}

const gb = (bytes: number) => (bytes / 1024 ** 3).toFixed(1)
