/**
 * Stores of N synthetic settlements for the benchmarks, written through `commitBatch` (the indexer's
 * only write path) and cached under `.data/bench/` by size, seed and a fingerprint of the store's
 * layout (the bytes a small store holds), so reruns skip the build and only a change of layout or
 * encoding rebuilds. A marker file is written last: a build that was interrupted is thrown away and redone.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commitBatch } from '../../src/explorer/store/index.js'
import { claimIdentity } from '../../src/explorer/store/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { storeContentHash } from '../../src/devnet/testing/index.js'
import { BENCH_CONTRACT, SyntheticChain } from './synthetic-chain.js'

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
  const path = join(BENCH_DIR, `store-${settlements}-s${chain.shape.seed}-${await layoutFingerprint(chain)}`)
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
  for (const step of chain.steps(0, head, 10_000)) {
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

/** A hash of every key and value of a 500-settlement store: changes exactly when the layout or encoding does. */
export async function layoutFingerprint(chain: SyntheticChain): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-layout-'))
  try {
    const store = openStore({ path: dir, noSync: true })
    await claimIdentity(store, { chainId: BENCH_CHAIN_ID, contract: BENCH_CONTRACT })
    const { head } = chain.headFor(500)
    for (const step of chain.steps(0, head, 200)) await commitBatch(store, step)
    const digest = storeContentHash(store)
    await store.close()
    return digest.slice(0, 8)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function freeBytes(dir: string): number {
  const probe = existsSync(dir) ? dir : '.'
  const s = statfsSync(probe)
  return s.bavail * s.bsize
}

const gb = (bytes: number) => (bytes / 1024 ** 3).toFixed(1)
