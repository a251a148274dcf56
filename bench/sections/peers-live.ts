/**
 * Mined block → a client sees its settlement, for the explorer's SSE stream and Ponder's live query
 * side by side: both indexers follow the same fake node while it grows at a fixed rate (bench_grow), and
 * one client of each, in this process, notes when it first sees each block. A block is mined when the
 * node's head passes it, on the node's schedule (head + k at `at` + k / rate s).
 */
import { Histogram, type Percentiles } from '../lib/histogram.js'
import type { SyntheticChain } from '../data/synthetic-chain.js'

const now = () => performance.timeOrigin + performance.now()

/** Reads a Server-Sent Events stream and hands each event's data to `onData`, until `close`. */
export async function readSse(url: string, onData: (data: string) => void): Promise<{ close(): void }> {
  const abort = new AbortController()
  const response = await fetch(url, { signal: abort.signal, headers: { accept: 'text/event-stream' } })
  if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  void (async () => {
    let buffer = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = frame
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n')
          if (data) onData(data)
        }
      }
    } catch {
      // aborted by close()
    }
  })()
  return { close: () => abort.abort() }
}

/** First time a client saw each block (ms, wall clock). */
export class BlockSightings {
  readonly seen = new Map<number, number>()
  #highest = 0

  /** The client saw everything through `block` now (a live query answers with the newest block only). */
  through(block: number): void {
    const at = now()
    for (let b = Math.max(this.#highest + 1, block - 10_000); b <= block; b++) if (!this.seen.has(b)) this.seen.set(b, at)
    this.#highest = Math.max(this.#highest, block)
  }

  /** The client saw a settlement of `block` now. */
  one(block: number): void {
    if (!this.seen.has(block)) this.seen.set(block, now())
  }
}

export interface LiveLatency {
  blocks: number
  seenBlocks: number
  latency: Percentiles
}

/** Latency from mined to seen for the blocks with settlements in (growth.head, toBlock]. */
export function liveLatency(chain: SyntheticChain, growth: { head: number; at: number; perSecond: number }, toBlock: number, sightings: BlockSightings): LiveLatency {
  const histogram = new Histogram()
  let blocks = 0
  let seenBlocks = 0
  for (let b = growth.head + 1; b <= toBlock; b++) {
    if (chain.settlementsIn(b) === 0) continue
    blocks++
    const seen = sightings.seen.get(b)
    if (seen === undefined) continue
    seenBlocks++
    histogram.record(seen - (growth.at + ((b - growth.head) / growth.perSecond) * 1000))
  }
  return { blocks, seenBlocks, latency: histogram.percentiles() }
}
