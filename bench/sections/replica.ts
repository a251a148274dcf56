/**
 * A replica from nothing: the real explorer, in its own process, starts on an empty data directory
 * against the fake node holding the largest bench chain, which keeps growing meanwhile (a live chain),
 * and is timed until `GET /ready` answers 200 (caught up within READY_MAX_LAG blocks). Its RSS is read
 * every second (the peak is what a machine must hold during a backfill). Then it is stopped and started
 * again on the same directory: process start to `/ready` 200 is restart to serving.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { BENCH_DIR } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { bundleExplorer, timeCompiledRestart } from '../explorer/compiled-explorer.js'
import { fmt, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { cpuSeconds, rssOfPid } from '../lib/proc.js'
import type { BenchContext, SectionResult } from './context.js'
import { growChain, startExplorerChild, startRpc, type ExplorerChild, type RpcChild } from './services.js'

/** About 40 settlements a second on the bench chain's shape: a busy contract, live. */
const LIVE_BLOCKS_PER_SECOND = 2

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `/ready` until 200; meanwhile `onTick` runs about once a second. Fails if either process has ended: it would never come. */
async function untilReady(explorer: ExplorerChild, rpc: RpcChild, onTick: () => void = () => {}): Promise<void> {
  let lastTick = 0
  for (;;) {
    for (const [what, child] of [['the explorer', explorer], ['the fake node', rpc]] as const) {
      if (child.process.exitCode !== null || child.process.signalCode !== null) throw new Error(`${what} ended (${child.process.exitCode ?? child.process.signalCode}) before /ready answered 200`)
    }
    const response = await fetch(`${explorer.ready.url}/ready`).catch(() => undefined)
    if (response?.status === 200) return
    await response?.arrayBuffer()
    if (performance.now() - lastTick >= 1000) {
      onTick()
      lastTick = performance.now()
    }
    await sleep(100)
  }
}

export async function replica(ctx: BenchContext): Promise<SectionResult> {
  const settlements = Math.max(...ctx.sizes)
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const dataDir = join(BENCH_DIR, `replica-${settlements}`)
  rmSync(dataDir, { recursive: true, force: true })
  const loadBefore = load1()
  try {
    await growChain(rpc, LIVE_BLOCKS_PER_SECOND)
    ctx.log(`replica: an empty explorer catching up with a live chain of ${fmt(rpc.ready.count)} settlements`)
    const started = performance.now()
    const first = await startExplorerChild({ dataDir, rpcUrl: rpc.ready.url, pollIntervalMs: 200 })
    let peakRss = 0
    let peakAnon = 0
    let cpu = 0
    try {
      const pid = first.process.pid!
      let logged = performance.now()
      await untilReady(first, rpc, () => {
        const memory = rssOfPid(pid)
        peakRss = Math.max(peakRss, memory.rss)
        peakAnon = Math.max(peakAnon, memory.anon)
        if (performance.now() - logged > 30_000) {
          ctx.log(`  ${((performance.now() - started) / 1000).toFixed(0)} s, RSS ${fmt(memory.rss / 1024 ** 2)} MB, anonymous ${fmt(memory.anon / 1024 ** 2)} MB`)
          logged = performance.now()
        }
      })
      peakRss = Math.max(peakRss, rssOfPid(pid).maxRss)
      cpu = cpuSeconds(pid)
    } finally {
      await first.stop()
    }
    const catchUpSeconds = (performance.now() - started) / 1000

    ctx.log('replica: restart on the same directory')
    const restartStarted = performance.now()
    const second = await startExplorerChild({ dataDir, rpcUrl: rpc.ready.url, pollIntervalMs: 200 })
    const listeningMs = performance.now() - restartStarted
    try {
      await untilReady(second, rpc)
    } finally {
      await second.stop()
    }
    const restartMs = performance.now() - restartStarted
    // As production runs it (the image's `node dist/explorer.js`): tsx transpiles at every start.
    const compiledMs = await timeCompiledRestart(await bundleExplorer(), dataDir, BENCH_CONTRACT, rpc.ready.url, '/ready', 1)
    const rate = rpc.ready.count / catchUpSeconds

    const headline = {
      [`replica from nothing to /ready, live chain of ${fmt(rpc.ready.count)} settlements`]: `${catchUpSeconds.toFixed(0)} s (${fmt(rate)} settlements/s), peak RSS ${fmt(peakRss / 1024 ** 2)} MB (anonymous ${fmt(peakAnon / 1024 ** 2)} MB)`,
      'replica restart to /ready (target < 1 s)': `compiled: ${fmt(compiledMs)} ms — ${verdict(compiledMs < 1000)}; under tsx: ${fmt(restartMs)} ms (listening after ${fmt(listeningMs)} ms)`,
    }
    const markdown =
      `An empty explorer (its own process, QUERY_WORKERS=1, INDEX_WORKERS=1, fsync on) against the fake node holding the chain of ${fmt(rpc.ready.count)} settlements, ` +
      `which grows by ${LIVE_BLOCKS_PER_SECOND} blocks/s from the start; timed from spawning the process to the first \`GET /ready\` 200 (indexed within READY_MAX_LAG blocks of the moving head), ` +
      'RSS read every second. Then the same directory is opened by a new process, under tsx and then compiled (`npm run build`, plain `node`), each timed to `/ready` 200 with the chain still growing.\n\n' +
      table(
        ['what', 'figure'],
        [
          ['spawn → /ready 200, from an empty directory', `${catchUpSeconds.toFixed(1)} s`],
          ['settlements/s over the catch-up (the chain at the start ÷ the time)', fmt(rate)],
          ['explorer CPU over the catch-up (all threads)', `${cpu.toFixed(1)} s = ${fmt((cpu / rpc.ready.count) * 1e6, 1)} µs per settlement`],
          ['explorer peak RSS: all / anonymous (heap and buffers; the rest are pages of the LMDB map)', `${fmt(peakRss / 1024 ** 2)} / ${fmt(peakAnon / 1024 ** 2)} MB`],
          ['restart under tsx: spawn → listening', `${fmt(listeningMs)} ms`],
          ['restart under tsx: spawn → /ready 200', `${fmt(restartMs)} ms`],
          ['restart compiled: spawn → /ready 200', `${fmt(compiledMs)} ms`],
          ['load before → after', `${loadBefore} → ${load1()}`],
        ],
      )
    return { markdown, headline }
  } finally {
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
