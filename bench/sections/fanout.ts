/**
 * WebSocket fan-out: N subscribers on `/stream` with a mix of filters (a quarter unfiltered, a quarter
 * by token, a quarter by recipient, a quarter by acquirer), from a separate process, while the fake
 * node grows the chain at a fixed block rate and the real explorer follows it block by block.
 * Latency runs from the commit of a block's settlements (LMDB's aftercommit, in the explorer process)
 * to the moment a sampled subscriber read the message; both clocks are the machine's wall clock.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { SettlementFilter } from '../../src/query/events-query.js'
import { syntheticAcquirer, syntheticRecipient, syntheticToken } from '../../test/helpers/synthetic-settlements.js'
import { BENCH_DIR } from '../data/bench-store.js'
import { startChild } from '../lib/child.js'
import { fmt, ms, table, verdict } from '../lib/format.js'
import { Histogram } from '../lib/histogram.js'
import { load1 } from '../lib/machine.js'
import type { FanoutTally } from '../load/ws-fanout.js'
import { profileMarkdown } from '../profile/summarize-cpu-profile.js'
import type { BenchContext, SectionResult } from './context.js'
import { profiled, rssOf, startExplorerChild, startRpc, type ExplorerChild } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function filterMix(clients: number, ctx: BenchContext): SettlementFilter[] {
  const { tokens, recipients, acquirers } = ctx.chain.shape
  return Array.from({ length: clients }, (_, i): SettlementFilter => {
    switch (i % 4) {
      case 0:
        return {}
      case 1:
        return { token: syntheticToken(i % tokens) }
      case 2:
        return { recipient: syntheticRecipient(i % recipients) }
      default:
        return { acquirerId: syntheticAcquirer(i % acquirers) }
    }
  })
}

/** How many of the filters each settlement of blocks (from, to] matches, summed. */
function expectedDeliveries(ctx: BenchContext, filters: SettlementFilter[], from: number, to: number): { settlements: number; deliveries: number } {
  const counts = new Map<string, number>()
  for (const f of filters) {
    const key = f.token ?? f.recipient ?? f.acquirerId ?? 'all'
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  let settlements = 0
  let deliveries = 0
  for (let b = from + 1; b <= to; b++) {
    for (const r of ctx.chain.records(b)) {
      settlements++
      deliveries += (counts.get('all') ?? 0) + (counts.get(r.token) ?? 0) + (counts.get(r.recipient) ?? 0) + (counts.get(`0x${r.reference.slice(34)}`) ?? 0)
    }
  }
  return { settlements, deliveries }
}

async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await response.json()) as { result: unknown }).result
}

const indexedBlock = async (explorer: ExplorerChild) => (await explorer.ask<{ status: { indexedBlock: number } }>({ type: 'status' })).status.indexedBlock

async function fanoutRun(ctx: BenchContext, clients: number, blocksPerSecond: number, seconds: number, profileDir?: string) {
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements: 2000 })
  const dataDir = join(BENCH_DIR, `fanout-${clients}`)
  rmSync(dataDir, { recursive: true, force: true })
  const explorer = await startExplorerChild({
    dataDir,
    rpcUrl: rpc.ready.url,
    pollIntervalMs: 10,
    env: { START_BLOCK: String(rpc.ready.head), BENCH_RECORD_COMMIT_TIMES: '1', WS_MAX_CONNECTIONS: String(clients + 100) },
  })
  const loader = await startChild<{ type: 'ready' }>('load/ws-fanout-process.ts')
  try {
    while ((await indexedBlock(explorer)) < rpc.ready.head) await sleep(20)
    const { hostname, port } = new URL(explorer.ready.url)
    const filters = filterMix(clients, ctx)
    const connectStarted = performance.now()
    await loader.ask({ type: 'connect', options: { host: hostname, port: Number(port), filters, sampleEvery: 7, maxSamples: 400_000 } })
    const connectSeconds = (performance.now() - connectStarted) / 1000
    const loadBefore = load1()
    const growth = (await rpcCall(rpc.ready.url, 'bench_grow', [blocksPerSecond])) as { head: number; at: number }
    await sleep(1000)
    const fromBlock = await indexedBlock(explorer)
    const cpu = async () => (await explorer.ask<{ cpu: NodeJS.CpuUsage }>({ type: 'cpu' })).cpu
    const window = async () => {
      const cpuBefore = await cpu()
      await loader.ask({ type: 'start' })
      await sleep(seconds * 1000)
      const toBlock = await indexedBlock(explorer)
      const { tally } = await loader.ask<{ tally: FanoutTally }>({ type: 'stop' })
      const cpuAfter = await cpu()
      const explorerCpu = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1e6 / tally.seconds
      return { toBlock, tally, explorerCpu }
    }
    const { toBlock, tally, explorerCpu } = await (profileDir ? profiled(explorer, profileDir, window) : window())
    const chainHead = ((await rpcCall(rpc.ready.url, 'bench_grow', [0])) as { head: number }).head
    const { commitTimes } = await explorer.ask<{ commitTimes: [number, number][] }>({ type: 'commitTimes' })
    const memory = await rssOf(explorer)
    const at = new Map(commitTimes)
    const latency = new Histogram()
    const fromChain = new Histogram()
    for (const [block, receivedAt] of tally.samples) {
      const committedAt = at.get(block)
      if (committedAt !== undefined) latency.record(receivedAt - committedAt)
      fromChain.record(receivedAt - (growth.at + ((block - growth.head) / blocksPerSecond) * 1000))
    }
    const published = expectedDeliveries(ctx, filters, fromBlock, toBlock)
    return {
      clients,
      blocksPerSecond,
      connectSeconds,
      publishedPerSecond: published.settlements / tally.seconds,
      expectedPerSecond: published.deliveries / tally.seconds,
      deliveriesPerSecond: tally.deliveries / tally.seconds,
      lagBlocks: chainHead - toBlock,
      latency: latency.percentiles(),
      fromChain: fromChain.percentiles(),
      closes: tally.closes,
      rss: memory.rss,
      explorerCpu,
      clientCpu: tally.cpuShare,
      load: `${loadBefore} → ${load1()}`,
    }
  } finally {
    await loader.stop()
    await explorer.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function fanout(ctx: BenchContext): Promise<SectionResult> {
  const plan = ctx.quick
    ? [{ clients: 200, blocksPerSecond: 10, seconds: 3 }]
    : [
        { clients: 1_000, blocksPerSecond: 20, seconds: 10 },
        { clients: 10_000, blocksPerSecond: 15, seconds: 10 },
      ]
  const runs = []
  for (const p of plan) {
    ctx.log(`fan-out: ${fmt(p.clients)} subscribers, chain growing ${p.blocksPerSecond} blocks/s (~${p.blocksPerSecond * ctx.chain.shape.maxPerBlock / 2} settlements/s)`)
    runs.push(await fanoutRun(ctx, p.clients, p.blocksPerSecond, p.seconds))
  }
  const headline: Record<string, string> = {}
  for (const r of runs) {
    const target = r.clients >= 10_000 ? ` (target ≥ 1,000,000/s, p99 < 20 ms) — ${verdict(r.deliveriesPerSecond >= 1_000_000 && r.latency.p99 < 20)}` : ''
    headline[`fan-out ${fmt(r.clients)} subscribers: deliveries/s, p99`] = `${fmt(r.deliveriesPerSecond)}/s, p99 ${ms(r.latency.p99)} ms${target}`
  }
  const markdown =
    'Mix per 4 subscribers: unfiltered, by token (1 of 3), by recipient (1 of 5,000), by acquirer (1 of 50). The explorer follows the head ' +
    '(POLL_INTERVAL_MS=10, block by block with parent-hash checks) as the fake node grows; subscribers run in one separate process over raw sockets. ' +
    '"expected" = deliveries the published settlements owed the subscribers in the window; a shortfall means the server or the client process fell behind. ' +
    'Latency: from the LMDB commit of the block (aftercommit in the explorer) to the sampled subscriber reading the message (every 7th subscriber). "block on node→delivery" adds the indexer\'s polling and per-block RPC reads: from the moment the fake node first served the block.\n\n' +
    table(
      ['subscribers', 'connect s', 'published settlements/s', 'deliveries/s', 'expected/s', 'commit→delivery p50 ms', 'p99 ms', 'p999 ms', 'max ms', 'block on node→delivery p50 / p99 ms', 'indexer lag at end (blocks)', 'closes', 'explorer RSS MB', 'CPU explorer / subscribers (cores)', 'load'],
      runs.map((r) => [
        fmt(r.clients),
        r.connectSeconds.toFixed(1),
        fmt(r.publishedPerSecond),
        fmt(r.deliveriesPerSecond),
        fmt(r.expectedPerSecond),
        ms(r.latency.p50),
        ms(r.latency.p99),
        ms(r.latency.p999),
        ms(r.latency.max),
        `${ms(r.fromChain.p50)} / ${ms(r.fromChain.p99)}`,
        r.lagBlocks,
        Object.entries(r.closes).map(([code, n]) => `${code}×${n}`).join(' ') || 'none',
        fmt(r.rss / 1024 ** 2),
        `${r.explorerCpu.toFixed(2)} / ${r.clientCpu.toFixed(2)}`,
        r.load,
      ]),
    )
  if (ctx.quick) return { markdown, headline }
  ctx.log('fan-out: profiling 10,000 subscribers')
  await fanoutRun(ctx, 10_000, 15, 6, `${ctx.profileDir}/fanout`)
  return {
    markdown: `${markdown}\n\n#### Where the time goes: 10,000 subscribers at 15 blocks/s (V8 CPU profile of the explorer main thread over the measured window)\n\n${profileMarkdown(`${ctx.profileDir}/fanout`)}`,
    headline,
  }
}
