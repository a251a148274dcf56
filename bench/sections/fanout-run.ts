/**
 * One fan-out set-up and its measured windows: the fake node, the real explorer following it block by
 * block, and N subscribers (a quarter unfiltered, a quarter by token, a quarter by recipient, a quarter
 * by acquirer) in the C client. Each window sets the chain's growth rate, lets it settle, then counts
 * what the subscribers received. Several windows share one set of connections, from the lowest rate up.
 * Latency runs from the commit of a block's settlements (LMDB's aftercommit, in the explorer process)
 * to the moment a sampled subscriber read the message; both clocks are the machine's wall clock.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { SettlementFilter } from '../../src/explorer/query/index.js'
import { syntheticAcquirer, syntheticRecipient, syntheticToken } from '../../src/devnet/testing/index.js'
import { BENCH_DIR } from '../data/bench-store.js'
import { Histogram, type Percentiles } from '../lib/histogram.js'
import { ms } from '../lib/format.js'
import { countSends } from '../profile/count-sends.js'
import { perfThread } from '../profile/perf-thread.js'
import { load1 } from '../lib/machine.js'
import { NativeSubscribers, type FanoutTally } from '../load/ws-fanout-native.js'
import type { BenchContext } from './context.js'
import { growChain, profiled, rssOf, startExplorerChild, startRpc, type ExplorerChild, type RpcChild } from './services.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface FanoutWindow {
  clients: number
  blocksPerSecond: number
  publishedPerSecond: number
  deliveriesPerSecond: number
  expectedPerSecond: number
  /** Average payload of a delivered message. */
  messageBytes: number
  latency: Percentiles
  fromChain: Percentiles
  /** Blocks the explorer fell further behind the chain during the window: > 0 means past capacity. */
  lagGrowth: number
  closes: Record<string, number>
  rssMb: number
  explorerCpu: number
  /** Deliveries per send syscall of the explorer (perf's count; undefined without perf). */
  deliveriesPerSend?: number
  clientCpu: number
  load: string
  /** With a profile: perf's summary of the explorer main thread (kernel included). */
  perf?: string
}

/** A window's commit → delivery p50, p99, p999 and max (ms), as table cells. */
export const latencyCells = (w: FanoutWindow) => [ms(w.latency.p50), ms(w.latency.p99), ms(w.latency.p999), ms(w.latency.max)]
export const closesCell = (w: FanoutWindow) => Object.entries(w.closes).map(([code, n]) => `${code}×${n}`).join(' ') || 'none'
export const cpuPerDelivery = (w: FanoutWindow) => ((w.explorerCpu / w.deliveriesPerSecond) * 1e6).toFixed(2)

export interface FanoutSetup {
  clients: number
  connectSeconds: number
  explorer: ExplorerChild
  /** The chain's growth rate (blocks/s) that owes the subscribers `deliveriesPerSecond`, on average. */
  blocksFor(deliveriesPerSecond: number): number
  measure(blocksPerSecond: number, seconds: number, profileDir?: string): Promise<FanoutWindow>
}

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

const indexedBlock = async (explorer: ExplorerChild) => (await explorer.ask<{ status: { indexedBlock: number } }>({ type: 'status' })).status.indexedBlock
const cpuSeconds = async (explorer: ExplorerChild) => {
  const { cpu } = await explorer.ask<{ cpu: NodeJS.CpuUsage }>({ type: 'cpu' })
  return (cpu.user + cpu.system) / 1e6
}

/** Starts the processes, connects `clients` subscribers, hands the set-up to `work`, and stops everything after. */
/** `env` adds to the explorer's settings (SERVER_THREADS, for one). */
export async function withFanout<T>(
  ctx: BenchContext,
  clients: number,
  work: (setup: FanoutSetup) => Promise<T>,
  beforeConnect?: (explorer: ExplorerChild) => Promise<void>,
  env: Record<string, string> = {},
): Promise<T> {
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements: 2000 })
  const dataDir = join(BENCH_DIR, `fanout-${clients}`)
  rmSync(dataDir, { recursive: true, force: true })
  const explorer = await startExplorerChild({
    dataDir,
    rpcUrl: rpc.ready.url,
    pollIntervalMs: 10,
    env: { START_BLOCK: String(rpc.ready.head), BENCH_RECORD_COMMIT_TIMES: '1', WS_MAX_CONNECTIONS: String(clients + 100), WS_MAX_CONNECTIONS_PER_IP: String(clients + 100), ...env },
  })
  let subscribers: NativeSubscribers | undefined
  try {
    while ((await indexedBlock(explorer)) < rpc.ready.head) await sleep(20)
    const { hostname, port } = new URL(explorer.ready.url)
    const filters = filterMix(clients, ctx)
    await beforeConnect?.(explorer)
    const connectStarted = performance.now()
    subscribers = await NativeSubscribers.connect({ host: hostname, port: Number(port), filters, sampleEvery: 7, maxSamples: 2_000_000 })
    const connectSeconds = (performance.now() - connectStarted) / 1000
    const sample = expectedDeliveries(ctx, filters, rpc.ready.head, rpc.ready.head + 2000)
    const measure = (blocksPerSecond: number, seconds: number, profileDir?: string) =>
      measureWindow({ ctx, rpc, explorer, subscribers: subscribers!, filters, blocksPerSecond, seconds, profileDir })
    const blocksFor = (deliveriesPerSecond: number) => (deliveriesPerSecond / sample.deliveries) * 2000
    return await work({ clients, connectSeconds, explorer, blocksFor, measure })
  } finally {
    await subscribers?.close()
    await explorer.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

interface WindowParts {
  ctx: BenchContext
  rpc: RpcChild
  explorer: ExplorerChild
  subscribers: NativeSubscribers
  filters: SettlementFilter[]
  blocksPerSecond: number
  seconds: number
  profileDir?: string
}

async function measureWindow(w: WindowParts): Promise<FanoutWindow> {
  const { rpc, explorer, subscribers } = w
  const loadBefore = load1()
  const growth = await growChain(rpc, w.blocksPerSecond)
  await sleep(1500)
  // The node's head at a moment, from its growth schedule: read beside the indexed block, not later.
  const nodeHead = () => growth.head + Math.floor(((performance.timeOrigin + performance.now() - growth.at) / 1000) * w.blocksPerSecond)
  const window = async () => {
    // perf takes a moment to attach: it counts from before the window to just after it (a few % wide).
    const stopCounting = countSends(explorer.process.pid!)
    await sleep(300)
    const cpuBefore = await cpuSeconds(explorer)
    // Owed from the block indexed when counting starts: read 300 ms earlier, the blocks of those
    // 300 ms were owed but delivered before the count began (4 % of a window at 7.6 blocks/s, which
    // failed the kept-up rule at 500k/s and set the capacity at ~275k/s from 2026-11-25 on).
    const fromBlock = await indexedBlock(explorer)
    const lagBefore = nodeHead() - fromBlock
    subscribers.start()
    await sleep(w.seconds * 1000)
    const toBlock = await indexedBlock(explorer)
    const lagAfter = nodeHead() - toBlock
    const tally: FanoutTally = await subscribers.stop()
    const explorerCpu = ((await cpuSeconds(explorer)) - cpuBefore) / tally.seconds
    const sends = await stopCounting()
    return { fromBlock, lagBefore, toBlock, lagAfter, tally, explorerCpu, sends }
  }
  const profileDir = w.profileDir
  const { result: measured, markdown: perf } = profileDir
    ? await perfThread(explorer.process.pid!, profileDir, () => profiled(explorer, profileDir, window))
    : { result: await window(), markdown: undefined }
  const { fromBlock, lagBefore, toBlock, lagAfter, tally, explorerCpu, sends } = measured
  const chainHead = (await growChain(rpc, 0)).head
  const { commitTimes } = await explorer.ask<{ commitTimes: [number, number][] }>({ type: 'commitTimes' })
  const at = new Map(commitTimes)
  const latency = new Histogram()
  const fromChain = new Histogram()
  for (const [block, receivedAt] of tally.samples) {
    const committedAt = at.get(block)
    if (committedAt !== undefined) latency.record(receivedAt - committedAt)
    fromChain.record(receivedAt - (growth.at + ((block - growth.head) / w.blocksPerSecond) * 1000))
  }
  const published = expectedDeliveries(w.ctx, w.filters, fromBlock, toBlock)
  const result = {
    clients: w.filters.length,
    blocksPerSecond: w.blocksPerSecond,
    publishedPerSecond: published.settlements / tally.seconds,
    deliveriesPerSecond: tally.deliveries / tally.seconds,
    expectedPerSecond: published.deliveries / tally.seconds,
    messageBytes: tally.bytes / tally.deliveries,
    latency: latency.percentiles(),
    fromChain: fromChain.percentiles(),
    lagGrowth: lagAfter - lagBefore,
    closes: tally.closes,
    rssMb: (await rssOf(explorer)).rss / 1024 ** 2,
    explorerCpu,
    deliveriesPerSend: sends ? tally.deliveries / sends : undefined,
    clientCpu: tally.cpuShare,
    load: `${loadBefore} → ${load1()}`,
    perf,
  }
  // Let the explorer catch up and the sockets drain before the next window (bounded: past capacity the
  // indexer behaves differently while it is behind, and a long catch-up measures nothing).
  const caughtUpBy = performance.now() + 60_000
  while ((await indexedBlock(explorer)) < chainHead && performance.now() < caughtUpBy) await sleep(50)
  await sleep(500)
  return result
}
