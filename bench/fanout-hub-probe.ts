/**
 * The live hub's sends per block on a fixed sequence of blocks: an in-process explorer following a
 * scripted chain, N subscribers in the C client (a quarter unfiltered, half on one of 3 tokens, a quarter
 * on one of 30 recipients), 40 blocks of 0–40 settlements mined one at a time, the process's send
 * syscalls counted by perf. Deterministic, so two builds of the hub compare send for send even on a busy
 * machine (CPU per delivery is printed too, but moves with the load). Issue 20: with GROUP_TURN_MESSAGES
 * (live-hub.ts) at 24, 1,836 sends per block at 2,000 subscribers; set to Infinity by hand, 1,986.
 *
 *   npx tsx bench/fanout-hub-probe.ts [subscribers=2000]
 */
import type { Hex } from '../src/wire/index.js'
import { ScriptedChain, type ScriptedSettlement } from '../src/devnet/testing/index.js'
import { startScriptedExplorer } from '../src/devnet/testing/index.js'
import { NativeSubscribers } from './load/ws-fanout-native.js'
import { countSends } from './profile/count-sends.js'

const N = Number(process.argv[2] ?? 2000)
const SIZES = [40, 33, 12, 26, 5, 38, 20, 0, 35, 15]
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const address = (prefix: number, i: number) => `0x${prefix.toString(16)}${i.toString(16).padStart(38, '0')}` as Hex
const TOKENS = [0, 1, 2].map((i) => address(0x70, i))
const RECIPIENTS = Array.from({ length: 30 }, (_, i) => address(0x4e, i))

const chain = new ScriptedChain({ contract: '0x5e771e0000000000000000000000000000000022' as Hex })
chain.mine([])
const running = await startScriptedExplorer(chain, { WS_MAX_CONNECTIONS: String(N + 100), WS_MAX_CONNECTIONS_PER_IP: String(N + 100) })
const { explorer } = running
const filters = Array.from({ length: N }, (_, i) => [{}, { token: TOKENS[i % 3] }, { recipient: RECIPIENTS[i % 30] }, { token: TOKENS[(i + 1) % 3] }][i % 4]!)
const clients = await NativeSubscribers.connect({ host: '127.0.0.1', port: explorer.port, filters, sampleEvery: 1_000_000, maxSamples: 1 })

let reference = 0
let seed = 5
const pick = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n
const settlement = (): ScriptedSettlement => ({
  token: TOKENS[pick(3)]!,
  payer: address(0x9a, pick(12)),
  recipient: RECIPIENTS[pick(30)]!,
  amount: 5n,
  fee: 1n,
  reference: `0x${(++reference).toString(16).padStart(64, '0')}`,
  domainSeparator: `0x${'d5'.repeat(32)}`,
})

const stopCounting = countSends(process.pid)
await sleep(500) // perf attaches
const cpuBefore = process.cpuUsage()
clients.start()
let blocks = 0
for (let round = 0; round < 4; round++) {
  for (const size of SIZES) {
    chain.mine(Array.from({ length: size }, settlement))
    blocks++
    while (explorer.indexer.status().indexedBlock < chain.head.blockNumber) await sleep(5)
    await sleep(150)
  }
}
await sleep(300)
const cpu = process.cpuUsage(cpuBefore)
const tally = await clients.stop()
const sends = await stopCounting()
console.log(
  JSON.stringify({
    subscribers: N,
    blocks,
    deliveries: tally.deliveries,
    sendsPerBlock: sends === undefined ? 'no perf' : Math.round(sends / blocks),
    deliveriesPerSend: sends === undefined ? 'no perf' : Number((tally.deliveries / sends).toFixed(2)),
    cpuUsPerDelivery: Number(((cpu.user + cpu.system) / tally.deliveries).toFixed(3)),
    closes: tally.closes,
  }),
)
await clients.close()
await running.stop()
process.exit(0)
