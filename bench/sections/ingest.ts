/**
 * Ingest: the real explorer, in its own process, backfills from the fake JSON-RPC node through
 * RPC_URL (adaptive eth_getLogs ranges against a 10,000-result cap, fetched and encoded by the
 * indexing pool, every index written, fsync on). Rate = settlements / time from listening to indexed
 * head = chain head, with the CPU time each process used: on 2 cores the node and the explorer share
 * them. Beside it, `commitBatch` alone on the same machine in the same run (encoding included), and
 * the commit of batches encoded beforehand: the main thread's own share of the bound.
 */
import { rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { commitBatch, commitEncoded } from '../../src/explorer/store/index.js'
import { encodeBatch } from '../../src/explorer/store/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { BENCH_DIR } from '../data/bench-store.js'
import { fmt, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { cpuSeconds, rssOfPid, threadsCpuSeconds } from '../lib/proc.js'
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
    const pid = explorer.process.pid!
    const started = performance.now()
    const cpuBefore = { rpc: cpuSeconds(rpc.process.pid!), explorer: cpuSeconds(pid), threads: threadsCpuSeconds(pid) }
    // Anonymous RSS (heaps and LMDB's dirty pages, not the mapped store) by quarter of the backfill: flat or growing.
    const anonByQuarter = [0, 0, 0, 0]
    const caughtUp = async () => {
      for (;;) {
        const { status } = await explorer.ask<{ status: { indexedBlock: number } }>({ type: 'status' })
        const quarter = Math.min(3, Math.floor((4 * Math.max(0, status.indexedBlock)) / rpc.ready.head))
        anonByQuarter[quarter] = Math.max(anonByQuarter[quarter]!, rssOfPid(pid).anon)
        if (status.indexedBlock >= rpc.ready.head) return
        await sleep(20)
      }
    }
    await (profileDir ? profiled(explorer, profileDir, caughtUp) : caughtUp())
    const seconds = (performance.now() - started) / 1000
    const cpu = { rpc: cpuSeconds(rpc.process.pid!) - cpuBefore.rpc, explorer: cpuSeconds(pid) - cpuBefore.explorer, threads: threadShares(pid, cpuBefore.threads) }
    const { calls } = await rpc.ask<{ calls: Record<string, number> }>({ type: 'calls' })
    const memory = await rssOf(explorer)
    return { count: rpc.ready.count, head: rpc.ready.head, seconds, rate: rpc.ready.count / seconds, cpu, calls, memory, anonByQuarter, load: `${loadBefore} → ${load1()}` }
  } finally {
    await explorer.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * The explorer's CPU by thread since `before`: the main thread (commits, serving), the busiest other
 * thread (the indexing pool's worker: fetching, scanning, encoding) and all the others (V8's GC
 * helpers, libuv's pool where LMDB commits and syncs).
 */
function threadShares(pid: number, before: Map<number, number>) {
  const used = [...threadsCpuSeconds(pid)].map(([tid, seconds]) => ({ tid, seconds: seconds - (before.get(tid) ?? 0) }))
  const main = used.find((t) => t.tid === pid)?.seconds ?? 0
  const others = used.filter((t) => t.tid !== pid).sort((a, b) => b.seconds - a.seconds)
  return { main, busiestOther: others[0]?.seconds ?? 0, rest: others.slice(1).reduce((sum, t) => sum + t.seconds, 0) }
}

/** `commitBatch` of steps of ~10k; or, `preEncoded`, `commitEncoded` of 5 batches per transaction encoded beforehand, as the indexer's backfill does. */
async function storeOnly(ctx: BenchContext, settlements: number, preEncoded = false) {
  const dataDir = join(BENCH_DIR, `commit-only-${settlements}`)
  rmSync(dataDir, { recursive: true, force: true })
  const store = openStore({ path: dataDir })
  const { head } = ctx.chain.headFor(settlements)
  const steps = [...ctx.chain.steps(0, head, 10_000)]
  const batches = preEncoded ? steps.map((s) => encodeBatch(s.records, s.blocks, s.head)) : []
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  let written = 0
  if (preEncoded) for (let i = 0; i < batches.length; i += 5) written += (await commitEncoded(store, batches.slice(i, i + 5), i === 0 ? steps[0]!.tokens : [])).length
  else for (const step of steps) written += (await commitBatch(store, step)).length
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  await store.close()
  rmSync(dataDir, { recursive: true, force: true })
  return { count: written, seconds, rate: written / seconds, cpuMicros: (cpu.user + cpu.system) / written }
}

export async function ingest(ctx: BenchContext): Promise<SectionResult> {
  const settlements = ctx.ingestSettlements ?? (ctx.quick ? 15_000 : 1_000_000)
  ctx.log(`ingest: backfilling ${fmt(settlements)} settlements from the fake RPC node`)
  const run = await backfill(ctx, settlements)
  const referenceCount = ctx.quick ? 15_000 : 200_000
  ctx.log(`ingest: commitBatch alone, ${fmt(referenceCount)} settlements`)
  const alone = await storeOnly(ctx, referenceCount)
  ctx.log(`ingest: commitEncoded of batches encoded beforehand, ${fmt(referenceCount)} settlements`)
  const commitOnly = await storeOnly(ctx, referenceCount, true)
  const perSettlement = (cpuSeconds: number) => `${fmt((cpuSeconds / run.count) * 1e6, 1)} µs`
  const headline = {
    'ingest settlements/s (target ≥ 100,000)': `${fmt(run.rate)} — ${verdict(run.rate >= 100_000)}`,
    'commitBatch alone settlements/s': fmt(alone.rate),
    'backfill CPU per settlement (explorer / fake node)': `${perSettlement(run.cpu.explorer)} (target ≤ 15) / ${perSettlement(run.cpu.rpc)}`,
  }
  let markdown =
    table(
      ['what', 'settlements', 'seconds', 'settlements/s', 'CPU per settlement', 'target', 'load'],
      [
        ['explorer backfill over RPC_URL (fake node, 10k-result cap, fsync on)', fmt(run.count), run.seconds.toFixed(1), fmt(run.rate), `explorer ${perSettlement(run.cpu.explorer)} (target ≤ 15), fake node ${perSettlement(run.cpu.rpc)}`, '≥ 100,000', run.load],
        ['`commitBatch` alone (same steps of ~10k, encoding included, fsync on)', fmt(alone.count), alone.seconds.toFixed(1), fmt(alone.rate), `${fmt(alone.cpuMicros, 1)} µs`, '—', `${load1()}`],
        ['`commitEncoded`, batches encoded beforehand, 5 per transaction (the main thread\'s share)', fmt(commitOnly.count), commitOnly.seconds.toFixed(1), fmt(commitOnly.rate), `${fmt(commitOnly.cpuMicros, 1)} µs`, '—', `${load1()}`],
      ],
    ) +
    `\n\nCPU during the backfill: explorer ${run.cpu.explorer.toFixed(1)} s (all threads), fake node ${run.cpu.rpc.toFixed(1)} s, over ${run.seconds.toFixed(1)} s on ${availableParallelism()} cores. ` +
    `Explorer CPU per settlement by thread: main ${perSettlement(run.cpu.threads.main)}, indexing worker (busiest other thread) ${perSettlement(run.cpu.threads.busiestOther)}, ` +
    `all other threads (GC helpers, libuv: LMDB commit and sync) ${perSettlement(run.cpu.threads.rest)}. ` +
    `Explorer anonymous RSS (peak per quarter of the backfill): ${run.anonByQuarter.map((b) => fmt(b / 1024 ** 2)).join(' / ')} MB. ` +
    `RPC calls served during the backfill: ${Object.entries(run.calls)
      .map(([m, n]) => `${m} ${fmt(n)}`)
      .join(', ')}. Explorer RSS when caught up: ${fmt(run.memory.rss / 1024 ** 2)} MB (peak ${fmt(run.memory.maxRss / 1024 ** 2)} MB).`
  if (!ctx.quick) {
    ctx.log('ingest: profiling a 200k backfill')
    await backfill(ctx, 200_000, `${ctx.profileDir}/ingest`)
    markdown += `\n\n#### Where the time goes: backfill of 200k settlements (V8 CPU profile of the explorer main thread, start to caught up)\n\n${profileMarkdown(`${ctx.profileDir}/ingest`)}`
  }
  return { markdown, headline }
}
