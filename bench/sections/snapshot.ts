/**
 * Replicas from snapshots (issue 40): the real explorer serves the largest bench store under a steady wrk
 * load (any of the chain's recipients, a random cursor) while `npm run explorer -- snapshot` copies its
 * store beside it; the load's req/s during the copy is set against the same load just before (the target:
 * < 10 % lost). Then a new replica is spawned on an empty directory with SNAPSHOT_FROM naming the copy, and
 * timed to `GET /ready` 200 (the target: within 60 s at 10M), against the catch-up from nothing of the
 * `replica` section.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BENCH_CHAIN_ID, BENCH_DIR, ensureBenchStore } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { requireWrk, runWrk, type WrkLoad } from '../load/wrk.js'
import { fmt, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { randomPages } from './http-throughput.js'
import { startExplorerChild, startRpc } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `load` in rounds of `roundMs` until `done` settles; the rounds' requests over their seconds. */
async function loadUntil(load: Omit<WrkLoad, 'durationMs'>, roundMs: number, done: Promise<unknown>): Promise<{ requestsPerSecond: number; p99: number }> {
  let finished = false
  void done.finally(() => (finished = true))
  let requests = 0
  let seconds = 0
  let p99 = 0
  while (!finished) {
    const round = await runWrk({ ...load, durationMs: roundMs })
    requests += round.requests
    seconds += round.seconds
    p99 = Math.max(p99, round.p99)
  }
  return { requestsPerSecond: requests / seconds, p99 }
}

export async function snapshot(ctx: BenchContext): Promise<SectionResult> {
  requireWrk()
  const settlements = Math.max(...ctx.sizes)
  const store = await ensureBenchStore(ctx.chain, settlements, ctx.log)
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const snapshotDir = join(BENCH_DIR, `snapshot-${settlements}`)
  const replicaDir = join(BENCH_DIR, `snapshot-replica-${settlements}`)
  for (const dir of [snapshotDir, replicaDir]) rmSync(dir, { recursive: true, force: true })
  const loadBefore = load1()
  try {
    const source = await startExplorerChild({ dataDir: store.path, rpcUrl: rpc.ready.url, queryWorkers: 1 })
    let copy: { seconds: number; manifest: { bytes: number; settlements: number } }
    let quiet: { requestsPerSecond: number; p99: number }
    let during: { requestsPerSecond: number; p99: number }
    try {
      const load = { url: source.ready.url, target: { pages: randomPages(ctx, store, 0, ctx.chain.shape.recipients) } }
      const roundMs = ctx.quick ? 2_000 : 5_000
      ctx.log(`snapshot: the source's req/s before the copy (${fmt(store.count)} settlements)`)
      quiet = await loadUntil(load, roundMs, sleep(ctx.quick ? 3_000 : 15_000))
      ctx.log('snapshot: npm run explorer -- snapshot, beside the loaded source')
      const started = performance.now()
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/explorer.ts', 'snapshot', snapshotDir], {
        env: { ...process.env, CHAIN_ID: String(BENCH_CHAIN_ID), SETTLEMENT_CONTRACT: BENCH_CONTRACT, RPC_URL: rpc.ready.url, DATA_DIR: store.path, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      const exited = once(child, 'exit') as Promise<[number]>
      during = await loadUntil(load, roundMs, exited)
      const [code] = await exited
      if (code !== 0) throw new Error(`the snapshot command exited ${code}`)
      copy = { seconds: (performance.now() - started) / 1000, manifest: JSON.parse(readFileSync(join(snapshotDir, 'snapshot.json'), 'utf8')) }
    } finally {
      await source.stop()
    }

    ctx.log('snapshot: a new replica from the snapshot, timed to /ready')
    const spawned = performance.now()
    const replica = await startExplorerChild({ dataDir: replicaDir, rpcUrl: rpc.ready.url, queryWorkers: 1, env: { SNAPSHOT_FROM: snapshotDir } })
    let readyMs: number
    try {
      while ((await fetch(`${replica.ready.url}/ready`).catch(() => undefined))?.status !== 200) await sleep(50)
      readyMs = performance.now() - spawned
    } finally {
      await replica.stop()
    }
    const lost = 1 - during.requestsPerSecond / quiet.requestsPerSecond
    const headline = {
      [`a new replica from a snapshot to /ready, ${fmt(copy.manifest.settlements)} settlements (target ≤ 60 s at 10M)`]: `${(readyMs / 1000).toFixed(1)} s — ${verdict(readyMs <= 60_000)}`,
      'the source serving during the snapshot (target: < 10 % of its req/s lost)': `${fmt(quiet.requestsPerSecond)} → ${fmt(during.requestsPerSecond)} req/s (${(lost * 100).toFixed(1)} % lost) — ${verdict(lost < 0.1)}`,
    }
    const markdown =
      `The explorer (its own process, QUERY_WORKERS=1) serves the bench store of ${fmt(store.count)} settlements under wrk (any recipient, a random cursor; closed loop) ` +
      'while `npm run explorer -- snapshot <dir>` copies the store beside it (compacting, one read transaction) and hashes the copy; then a new replica is spawned on an empty ' +
      'directory with `SNAPSHOT_FROM=<dir>`, which copies the file in, checks its SHA-256 and serves.\n\n' +
      table(
        ['what', 'figure'],
        [
          ['snapshot: command start → exit (copy, hash, manifest)', `${copy.seconds.toFixed(1)} s`],
          ['snapshot size (compacted) / source file', `${fmt(copy.manifest.bytes / 1024 ** 2)} MB (${fmt(copy.manifest.bytes / copy.manifest.settlements)} B per settlement)`],
          ['source req/s before / during the snapshot', `${fmt(quiet.requestsPerSecond)} / ${fmt(during.requestsPerSecond)} (${(lost * 100).toFixed(1)} % lost)`],
          ['source p99 before / during (worst round)', `${fmt(quiet.p99, 2)} / ${fmt(during.p99, 2)} ms`],
          ['new replica: spawn → /ready 200 (restore, hash check, open, catch up)', `${(readyMs / 1000).toFixed(1)} s`],
          ['load before → after', `${loadBefore} → ${load1()}`],
        ],
      )
    return { markdown, headline }
  } finally {
    await rpc.stop()
    for (const dir of [snapshotDir, replicaDir]) rmSync(dir, { recursive: true, force: true })
  }
}
