/**
 * Footprint: LMDB bytes per settlement (file size, pages in use per database from the LMDB stats, and
 * a compacted copy, which tells the data from the free pages a backfill leaves), the explorer's RSS,
 * and restart-to-serving time on a store that is already full.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { syntheticRecipient } from '../../src/devnet/testing/index.js'
import { amountsDb } from '../../src/explorer/store/index.js'
import { openStore, type Store } from '../../src/explorer/store/index.js'
import { ensureBenchStore } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { bundleExplorer, timeCompiledRestart } from '../explorer/compiled-explorer.js'
import { fmt, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { rssOf, startExplorerChild, startRpc } from './services.js'

interface DbStats {
  pageSize: number
  treeBranchPageCount: number
  treeLeafPageCount: number
  overflowPages: number
  entryCount: number
}

function dbBytes(store: Store) {
  const named: [string, { getStats(): unknown }][] = [
    ['events', store.events],
    ...Object.entries(store.indexes).map(([f, db]) => [`idx:${f}`, db] as [string, { getStats(): unknown }]),
    ["runs (the records, in their recipients' runs)", store.runs],
    ['ids (tokens, domain separators, recipients)', store.ids],
    ['times', store.times],
    ['blocks', store.blocks],
    ['stats', store.stats],
    ['hours', store.hours],
    ['tokens', store.tokens],
    ['meta', store.meta],
    ['buckets (filtered statistics)', store.buckets],
    ['amounts (amount index)', amountsDb(store)],
  ]
  return named.map(([name, db]) => {
    const s = db.getStats() as DbStats
    return { name, entries: s.entryCount, bytes: (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize }
  })
}

/**
 * Bytes of a compacted copy (mdb_env_copy2 with MDB_CP_COMPACT): the store without free pages. Each
 * backfill transaction rewrites every page it touches, and LMDB reuses the old copies only two
 * commits later, so the file keeps about two transactions' worth of free pages.
 */
async function compactedBytes(store: Store, path: string): Promise<number> {
  const copy = `${path}-compacted`
  rmSync(copy, { recursive: true, force: true })
  mkdirSync(copy)
  try {
    await (store.env as unknown as { backup(path: string, compact: boolean): Promise<void> }).backup(copy, true)
    return statSync(join(copy, 'data.mdb')).size
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function footprint(ctx: BenchContext): Promise<SectionResult> {
  const parts: string[] = []
  const headline: Record<string, string> = {}
  for (const size of ctx.sizes) {
    const built = await ensureBenchStore(ctx.chain, size, ctx.log)
    ctx.log(`footprint at ${fmt(built.count)} settlements`)
    const fileBytes = statSync(join(built.path, 'data.mdb')).size
    const store = openStore({ path: built.path })
    const dbs = dbBytes(store)
    const env = store.env.getStats() as { lastPageNumber: number; pageSize: number }
    const compacted = await compactedBytes(store, built.path)
    await store.close()
    const used = (env.lastPageNumber + 1) * env.pageSize
    // A dupsort database's stats count its main tree only; the values of a key with many values live in sub-trees.
    dbs.push({ name: 'dupsort sub-trees (token, recipient, acquirerId, payer, txHash values) and the two meta pages', entries: 0, bytes: compacted - dbs.reduce((sum, d) => sum + d.bytes, 0) })
    dbs.push({ name: 'free pages (left by the backfill transactions; absent from a compacted copy)', entries: 0, bytes: used - compacted })
    const perSettlement = fileBytes / built.count
    const compactedPerSettlement = compacted / built.count

    const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements: size })
    const bundle = await bundleExplorer()
    const compiled: { queryWorkers: number; ms: number }[] = []
    const restarts: { queryWorkers: number; ready: number; start: number; firstQuery: number; rss: number }[] = []
    const loadBefore = load1()
    try {
      for (const queryWorkers of ctx.quick ? [1, 0] : [1, 1, 1, 0, 0, 0]) {
        const forked = performance.now()
        const explorer = await startExplorerChild({ dataDir: built.path, rpcUrl: rpc.ready.url, queryWorkers })
        const ready = performance.now() - forked
        const response = await fetch(`${explorer.ready.url}/events?recipient=${syntheticRecipient(11)}`)
        await response.arrayBuffer()
        const firstQuery = performance.now() - forked
        if (response.status !== 200) throw new Error(`first query after restart answered ${response.status}`)
        const { rss } = await rssOf(explorer)
        restarts.push({ queryWorkers, ready, start: explorer.ready.startMs, firstQuery, rss })
        await explorer.stop()
        compiled.push({ queryWorkers, ms: await timeCompiledRestart(bundle, built.path, BENCH_CONTRACT, rpc.ready.url, `/events?recipient=${syntheticRecipient(11)}`, queryWorkers) })
      }
    } finally {
      await rpc.stop()
    }
    const medians = (workers: number) => {
      const of = restarts.filter((r) => r.queryWorkers === workers)
      return {
        start: median(of.map((r) => r.start)),
        ready: median(of.map((r) => r.ready)),
        firstQuery: median(of.map((r) => r.firstQuery)),
        rss: median(of.map((r) => r.rss)),
      }
    }
    const restart = medians(1)
    const inline = medians(0)
    const compiledMs = (workers: number) => median(compiled.filter((c) => c.queryWorkers === workers).map((c) => c.ms))
    headline[`LMDB bytes/settlement @${fmt(built.count)} (target ≤ 600)`] = `${fmt(perSettlement)} — ${verdict(perSettlement <= 600)} (a compacted copy: ${fmt(compactedPerSettlement)})`
    headline[`restart to serving @${fmt(built.count)} (target < 1 s)`] =
      `compiled (npm run build, plain node): ${fmt(compiledMs(1))} ms (QUERY_WORKERS=1), ${fmt(compiledMs(0))} ms (0) process start to first /events answer — ${verdict(compiledMs(1) < 1000)}; ` +
      `under tsx: ${fmt(restart.firstQuery)} ms (QUERY_WORKERS=1), ${fmt(inline.firstQuery)} ms (0); startExplorer itself ${fmt(restart.start)} ms`
    parts.push(
      `### ${fmt(built.count)} settlements (load ${loadBefore} → ${load1()})\n\n` +
        `data.mdb: ${fmt(fileBytes / 1024 ** 2)} MB = **${fmt(perSettlement)} bytes per settlement** (target ≤ 600); ` +
        `pages in use: ${fmt(used / 1024 ** 2)} MB = ${fmt(used / built.count)} bytes per settlement; ` +
        `a compacted copy (\`env.backup(dir, true)\`, no free pages): ${fmt(compacted / 1024 ** 2)} MB = **${fmt(compactedPerSettlement)} bytes per settlement**.\n\n` +
        table(
          ['database', 'entries', 'MB', 'bytes per settlement'],
          dbs.map((d) => [d.name, fmt(d.entries), fmt(d.bytes / 1024 ** 2, 1), fmt(d.bytes / built.count, 1)]),
        ) +
        `\n\nRestart with QUERY_WORKERS=1 (median of ${ctx.quick ? 1 : 3}, page cache warm): \`startExplorer\` ${fmt(restart.start)} ms; process start (node + tsx) to listening ` +
        `${fmt(restart.ready)} ms; process start to the first \`/events?recipient=\` answer ${fmt(restart.firstQuery)} ms (target < 1 s). ` +
        `Explorer RSS after that first query: ${fmt(restart.rss / 1024 ** 2)} MB. ` +
        `With QUERY_WORKERS=0 (no pool worker to boot): \`startExplorer\` ${fmt(inline.start)} ms, first answer ${fmt(inline.firstQuery)} ms after process start, RSS ${fmt(inline.rss / 1024 ** 2)} MB. ` +
        `Compiled (\`npm run build\`, plain \`node dist/explorer.js\`): **${fmt(compiledMs(1))} ms** with QUERY_WORKERS=1, ${fmt(compiledMs(0))} ms with 0, from process start to the first answer (target < 1 s).`,
    )
  }
  return { markdown: parts.join('\n\n'), headline }
}
