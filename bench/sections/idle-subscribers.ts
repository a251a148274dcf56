/**
 * Idle subscribers (issue 20): what one open, subscribed and silent WebSocket costs the explorer, and how
 * long a block then takes to reach all of them. The subscribers are the fan-out section's mix (a quarter
 * each unfiltered, by token, by recipient, by acquirer) in the same C client.
 *
 * Memory per subscriber = the explorer's anonymous RSS (heap, uWS's per-socket state and buffers; not the
 * LMDB map's file pages) after connecting, less before, over the subscribers, each read after a full
 * garbage collection; the JS heap's share is shown apart. The kernel's own socket memory (both ends of a
 * loopback connection, in /proc/net/sockstat) is not in any process's RSS and is shown beside it.
 *
 * The count is bounded by the open-file limit: one descriptor per connection in the explorer and in the
 * client, and neither may raise its hard limit here (RLIMIT_NOFILE 20,000, setrlimit refused).
 * The block's delivery is measured again on two server threads (SERVER_THREADS), on a fresh explorer.
 */
import { readFileSync } from 'node:fs'
import { fmt, ms, table, verdict } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'
import { closesCell, cpuPerDelivery, latencyCells, withFanout, type FanoutWindow } from './fanout-run.js'
import { SERVER_THREADS, type ExplorerChild } from './services.js'

const TARGET_SUBSCRIBERS = 100_000
const TARGET_BYTES = 10 * 1024
/** Descriptors kept for everything else the explorer and the client open (LMDB, pipes, workers, the node). */
const SPARE_FILES = 400
/** One block a second: the delivery of each block is measured alone, not queued behind the next. */
const BLOCKS_PER_SECOND = 1

interface Memory {
  anon: number
  heapUsed: number
  kernelTcp: number
}

export async function idleSubscribers(ctx: BenchContext): Promise<SectionResult> {
  const fileLimit = hardFileLimit()
  const clients = ctx.quick ? 500 : Math.min(TARGET_SUBSCRIBERS, fileLimit - SPARE_FILES)
  ctx.log(`idle subscribers: ${fmt(clients)} (open-file hard limit ${fmt(fileLimit)})`)
  let before: Memory | undefined
  const loadBefore = load1()
  const result = await withFanout(
    ctx,
    clients,
    async (setup) => {
      await new Promise((resolve) => setTimeout(resolve, 2000))
      const after = await memory(setup.explorer)
      const w = await setup.measure(BLOCKS_PER_SECOND, ctx.quick ? 3 : 10)
      return { after, w, connectSeconds: setup.connectSeconds }
    },
    async (explorer) => void (before = await memory(explorer)),
  )
  const { after, w, connectSeconds } = result
  const loadBetween = load1()
  // The same block delivery on two server threads, each sending to its share of the subscribers.
  const threaded = await withFanout(ctx, clients, (setup) => setup.measure(BLOCKS_PER_SECOND, ctx.quick ? 3 : 10), undefined, { SERVER_THREADS: String(SERVER_THREADS) })
  const perSubscriber = (field: keyof Memory) => (after[field] - before![field]) / clients
  const bytes = perSubscriber('anon')
  const headline = {
    [`idle subscribers: memory per subscriber, explorer anonymous RSS (target ≤ 10 KB at ${fmt(TARGET_SUBSCRIBERS)})`]:
      `${fmt(bytes)} B at ${fmt(clients)} subscribers — ${verdict(bytes <= TARGET_BYTES)} per subscriber; ${fmt(TARGET_SUBSCRIBERS)} not reachable here (open-file hard limit ${fmt(fileLimit)})`,
    [`idle subscribers: a block to all of ${fmt(clients)}, commit → delivery p50 / p99`]: `${ms(w.latency.p50)} / ${ms(w.latency.p99)} ms`,
    [`idle subscribers on ${SERVER_THREADS} server threads: a block to all of ${fmt(clients)}, commit → delivery p50 / p99`]: `${ms(threaded.latency.p50)} / ${ms(threaded.latency.p99)} ms`,
  }
  const markdown =
    `${fmt(clients)} subscribers (the open-file hard limit here is ${fmt(fileLimit)} per process and cannot be raised: ${fmt(TARGET_SUBSCRIBERS)} need another machine or several explorer processes), ` +
    `the fan-out mix, connected in ${connectSeconds.toFixed(1)} s. Memory read after a full garbage collection, before connecting and 2 s after the last subscription; ` +
    `then the chain grew ${BLOCKS_PER_SECOND} block/s (0–40 settlements each) for a window, each block delivered to every subscriber it matches.\n\n` +
    table(
      ['', 'explorer anonymous RSS MB', 'JS heap used MB', 'kernel TCP memory MB (both ends)'],
      [
        ['before connecting', mb(before!.anon), mb(before!.heapUsed), mb(before!.kernelTcp)],
        [`with ${fmt(clients)} subscribers`, mb(after.anon), mb(after.heapUsed), mb(after.kernelTcp)],
        ['per subscriber, bytes', fmt(bytes), fmt(perSubscriber('heapUsed')), fmt(perSubscriber('kernelTcp'))],
      ],
    ) +
    '\n\n' +
    table(
      ['server threads', 'blocks/s', 'settlements/s', 'deliveries/s', 'expected/s', 'commit→delivery p50 ms', 'p99 ms', 'p999 ms', 'max ms', 'explorer µs per delivery', 'closes', 'load'],
      [
        ['1', ...blockCells(w), `${loadBefore} → ${loadBetween}`],
        [String(SERVER_THREADS), ...blockCells(threaded), `${loadBetween} → ${load1()}`],
      ],
    )
  return { markdown, headline }
}

const blockCells = (w: FanoutWindow) => [BLOCKS_PER_SECOND, fmt(w.publishedPerSecond), fmt(w.deliveriesPerSecond), fmt(w.expectedPerSecond), ...latencyCells(w), cpuPerDelivery(w), closesCell(w)]

async function memory(explorer: ExplorerChild): Promise<Memory> {
  await explorer.ask({ type: 'gc' })
  const { memory, rssAnonBytes } = await explorer.ask<{ memory: NodeJS.MemoryUsage; rssAnonBytes: number }>({ type: 'memory' })
  return { anon: rssAnonBytes, heapUsed: memory.heapUsed, kernelTcp: kernelTcpBytes() }
}

/** The kernel's TCP buffer memory, all sockets (pages in /proc/net/sockstat). */
function kernelTcpBytes(): number {
  const pages = Number(/TCP: .* mem (\d+)/.exec(readFileSync('/proc/net/sockstat', 'utf8'))?.[1] ?? 0)
  return pages * 4096
}

function hardFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
  return Number(line?.trim().split(/\s+/)[4] ?? 1024)
}

const mb = (bytes: number) => (bytes / 1024 ** 2).toFixed(1)
