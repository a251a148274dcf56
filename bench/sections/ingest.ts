/**
 * Ingest: the real explorer, in its own process, backfills from the fake JSON-RPC node through
 * RPC_URL (viem over HTTP, adaptive eth_getLogs ranges against a 10,000-result cap, every index
 * written, fsync on). Rate = settlements / time from listening to indexed head = chain head. Beside
 * it, `commitBatch` alone on the same machine in the same run: the store's share of the bound.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { commitBatch } from '../../src/store/commit-batch.js'
import { openStore } from '../../src/store/open-store.js'
import { BENCH_DIR } from '../data/bench-store.js'
import { fmt, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { profileMarkdown } from '../profile/summarize-cpu-profile.js'
import type { BenchContext, SectionResult } from './context.js'
import { profiled, rssOf, startExplorerChild, startRpc } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function backfill(ctx: BenchContext, settlements: number, profileDir?: string) {
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const dataDir = join(BENCH_DIR, `ingest-${settlements}`)
  rmSync(dataDir, { recursive: true, force: true })
  const loadBefore = load1()
  const explorer = await startExplorerChild({ dataDir, rpcUrl: rpc.ready.url, queryWorkers: 0, pollIntervalMs: 50 })
  try {
    const started = performance.now()
    const caughtUp = async () => {
      for (;;) {
        const { status } = await explorer.ask<{ status: { indexedBlock: number } }>({ type: 'status' })
        if (status.indexedBlock >= rpc.ready.head) return
        await sleep(20)
      }
    }
    await (profileDir ? profiled(explorer, profileDir, caughtUp) : caughtUp())
    const seconds = (performance.now() - started) / 1000
    const { calls } = await rpc.ask<{ calls: Record<string, number> }>({ type: 'calls' })
    const memory = await rssOf(explorer)
    return { count: rpc.ready.count, head: rpc.ready.head, seconds, rate: rpc.ready.count / seconds, calls, memory, load: `${loadBefore} → ${load1()}` }
  } finally {
    await explorer.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function storeOnly(ctx: BenchContext, settlements: number) {
  const dataDir = join(BENCH_DIR, `commit-only-${settlements}`)
  rmSync(dataDir, { recursive: true, force: true })
  const store = openStore({ path: dataDir })
  const { head } = ctx.chain.headFor(settlements)
  const steps = [...ctx.chain.steps(0, head, 10_000)]
  const started = performance.now()
  let written = 0
  for (const step of steps) written += (await commitBatch(store, step)).length
  const seconds = (performance.now() - started) / 1000
  await store.close()
  rmSync(dataDir, { recursive: true, force: true })
  return { count: written, seconds, rate: written / seconds }
}

export async function ingest(ctx: BenchContext): Promise<SectionResult> {
  const settlements = ctx.quick ? 15_000 : 1_000_000
  ctx.log(`ingest: backfilling ${fmt(settlements)} settlements from the fake RPC node`)
  const run = await backfill(ctx, settlements)
  const referenceCount = ctx.quick ? 15_000 : 200_000
  ctx.log(`ingest: commitBatch alone, ${fmt(referenceCount)} settlements`)
  const alone = await storeOnly(ctx, referenceCount)
  const headline = {
    'ingest settlements/s (target ≥ 100,000)': `${fmt(run.rate)} — ${verdict(run.rate >= 100_000)}`,
    'commitBatch alone settlements/s': fmt(alone.rate),
  }
  let markdown =
    table(
      ['what', 'settlements', 'seconds', 'settlements/s', 'target', 'load'],
      [
        ['explorer backfill over RPC_URL (fake node, 10k-result cap, fsync on)', fmt(run.count), run.seconds.toFixed(1), fmt(run.rate), '≥ 100,000', run.load],
        ['`commitBatch` alone (same steps of ~10k, fsync on)', fmt(alone.count), alone.seconds.toFixed(1), fmt(alone.rate), '—', `${load1()}`],
      ],
    ) +
    `\n\nRPC calls served during the backfill: ${Object.entries(run.calls)
      .map(([m, n]) => `${m} ${fmt(n)}`)
      .join(', ')}. Explorer RSS when caught up: ${fmt(run.memory.rss / 1024 ** 2)} MB (peak ${fmt(run.memory.maxRss / 1024 ** 2)} MB).`
  if (!ctx.quick) {
    ctx.log('ingest: profiling a 200k backfill')
    await backfill(ctx, 200_000, `${ctx.profileDir}/ingest`)
    markdown += `\n\n#### Where the time goes: backfill of 200k settlements (V8 CPU profile of the explorer main thread, start to caught up)\n\n${profileMarkdown(`${ctx.profileDir}/ingest`)}`
  }
  return { markdown, headline }
}
