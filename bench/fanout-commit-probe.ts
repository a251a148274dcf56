/**
 * How long a committed block takes to reach a subscriber when there is no fan-out burst: an in-process
 * explorer following a scripted chain, one unfiltered WebSocket subscriber, 60 blocks of 20 settlements
 * mined 100 ms apart. Reports mine → LMDB aftercommit (the indexer's polling and commit) and aftercommit
 * → the client reading the block's first message (the hub's rendering and publishing, uWS's drain, the
 * socket). Issue 20 measured p50 0.61 ms for the second: the ~30 ms p50 of the fan-out section at
 * 10,000 subscribers is the block's send burst, not this path.
 *
 *   npx tsx bench/fanout-commit-probe.ts
 */
import WebSocket from 'ws'
import { readHead } from '../src/explorer/store/index.js'
import type { Hex } from '../src/wire/index.js'
import { ScriptedChain, type ScriptedSettlement } from '../src/devnet/testing/index.js'
import { startScriptedExplorer } from '../src/devnet/testing/index.js'
import { Histogram, type Percentiles } from './lib/histogram.js'

const BLOCKS = 60
const PER_BLOCK = 20
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const chain = new ScriptedChain({ contract: '0x5e771e0000000000000000000000000000000021' as Hex })
chain.mine([])
const running = await startScriptedExplorer(chain)
const { explorer } = running
const committedAt = new Map<number, number>()
let recorded = 0
explorer.store.env.on('aftercommit', () => {
  const at = performance.now()
  const head = readHead(explorer.store)?.blockNumber ?? 0
  for (let b = recorded + 1; b <= head; b++) committedAt.set(b, at)
  recorded = Math.max(recorded, head)
})

const socket = new WebSocket(`${explorer.url.replace(/^http/, 'ws')}/stream`)
await new Promise((resolve) => socket.once('open', resolve))
const readAt = new Map<number, number>()
socket.on('message', (data) => {
  const m = JSON.parse(data.toString()) as { type: string; data?: { blockNumber: number } }
  if (m.type === 'SETTLEMENT' && !readAt.has(m.data!.blockNumber)) readAt.set(m.data!.blockNumber, performance.now())
})
socket.send(JSON.stringify({ type: 'SUBSCRIBE', channel: 'settlements' }))
await sleep(300)

const minedAt = new Map<number, number>()
let reference = 0
const settlement = (): ScriptedSettlement => ({
  token: `0x${'70'.repeat(20)}`,
  payer: `0x${'9a'.repeat(20)}`,
  recipient: `0x${'4e'.repeat(20)}`,
  amount: 5n,
  fee: 1n,
  reference: `0x${(++reference).toString(16).padStart(64, '0')}`,
  domainSeparator: `0x${'d5'.repeat(32)}`,
})
for (let b = 0; b < BLOCKS; b++) {
  minedAt.set(chain.mine(Array.from({ length: PER_BLOCK }, settlement)).blockNumber, performance.now())
  await sleep(100)
}
await sleep(500)

const toCommit = new Histogram()
const toRead = new Histogram()
for (const [block, at] of readAt) {
  toCommit.record(committedAt.get(block)! - minedAt.get(block)!)
  toRead.record(at - committedAt.get(block)!)
}
const ms = (p: Percentiles) => `p50 ${p.p50.toFixed(2)} / p99 ${p.p99.toFixed(2)} / max ${p.max.toFixed(2)} ms`
console.log(`${readAt.size} blocks; mine → aftercommit ${ms(toCommit.percentiles())}; aftercommit → first message read ${ms(toRead.percentiles())}`)
socket.terminate()
await running.stop()
