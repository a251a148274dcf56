/**
 * Does a second uWS thread pay for fan-out on this machine? A bare uWS fan-out (no store, no indexer)
 * on 1 or 2 worker threads sharing one port, against the C subscriber client. Each "block" of 0..40
 * messages of the explorer's size (624 bytes) is published to the topics of the bench's mix (a quarter
 * of the subscribers unfiltered, a quarter on 1 of 3 tokens, 1 of 50 acquirers, 1 of 5,000 recipients),
 * so a delivery costs what it costs in the explorer minus the explorer's own work.
 *
 *   npx tsx bench/fanout-threads-probe.ts --threads 2 [--subscribers 10000] [--rate 1000000] [--seconds 8]
 *
 * Latency runs from the moment the main thread hands a block to the workers to the sampled receipt.
 */
import { parseArgs } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import uWS from 'uWebSockets.js'
import type { SettlementFilter } from '../src/explorer/query/index.js'
import { Histogram } from './lib/histogram.js'
import { NativeSubscribers } from './load/ws-fanout-native.js'

const PORT = 9417
const PAD = 'x'.repeat(560)
const message = (block: number, i: number) => `{"type":"SETTLEMENT","data":{"blockNumber":${block},"logIndex":${i},"pad":"${PAD}"},"cursor":"${block}-${i}"}`
const topicsOf = (n: number) => ['all', `t${n % 3}`, `a${n % 50}`, `r${n % 5000}`]

function serve(): void {
  const app = uWS.App()
  app.ws<{ subscribed?: boolean }>('/stream', {
    compression: uWS.DISABLED,
    maxBackpressure: 64 * 1024 * 1024,
    message(ws, raw) {
      const { filter = {} } = JSON.parse(Buffer.from(raw).toString()) as { filter?: Record<string, string> }
      const [key, value] = Object.entries(filter)[0] ?? ['all', '']
      ws.subscribe(key === 'all' ? 'all' : `${key[0]}${value}`)
      ws.send('{"type":"SUBSCRIBED"}')
    },
  })
  let listening: uWS.us_listen_socket | undefined
  app.listen('127.0.0.1', PORT, (socket) => {
    if (!socket) throw new Error(`port ${PORT} is taken`)
    listening = socket
    parentPort!.postMessage('listening')
  })
  // The worker ends once its listen socket and connections are closed (uWS aborts a forced exit).
  parentPort!.on('message', (m: { block: number; first: number; count: number } | 'stop') => {
    if (m === 'stop') {
      uWS.us_listen_socket_close(listening!)
      return parentPort!.close()
    }
    const { block, first, count } = m
    for (let n = first; n < first + count; n++) {
      const text = message(block, n - first)
      for (const topic of topicsOf(n)) app.publish(topic, text)
    }
  })
}

function filterOf(i: number): SettlementFilter {
  const hex = (n: number) => String(n) as SettlementFilter['token']
  return [{}, { token: hex(i % 3) }, { recipient: hex(i % 5000) }, { acquirerId: hex(i % 50) }][i % 4]!
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { threads: { type: 'string', default: '1' }, subscribers: { type: 'string', default: '10000' }, rate: { type: 'string', default: '1000000' }, seconds: { type: 'string', default: '8' } } })
  const threads = Number(values.threads)
  const subscribers = Number(values.subscribers)
  // A worker does not inherit tsx's loader under Node 20: it registers it, then imports this file.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}) })`
  const workers = Array.from({ length: threads }, () => new Worker(boot, { eval: true, workerData: 'serve' }))
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))))
  const filters = Array.from({ length: subscribers }, (_, i) => filterOf(i))
  const clients = await NativeSubscribers.connect({ host: '127.0.0.1', port: PORT, filters, sampleEvery: 7, maxSamples: 2_000_000 })
  const perMessage = filters.reduce((sum, f, i) => sum + (Object.keys(f).length === 0 ? 1 : i % 4 === 1 ? 1 / 3 : i % 4 === 3 ? 1 / 50 : 1 / 5000), 0)
  const blocksPerSecond = Number(values.rate) / perMessage / 20
  const sentAt = new Map<number, number>()
  let block = 0
  let first = 0
  let seed = 1
  const tick = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    const count = seed % 41
    sentAt.set(++block, performance.timeOrigin + performance.now())
    for (const w of workers) w.postMessage({ block, first, count })
    first += count
  }
  const timer = setInterval(tick, 1000 / blocksPerSecond)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const cpuBefore = process.cpuUsage()
  const firstCounted = first
  clients.start()
  await new Promise((resolve) => setTimeout(resolve, Number(values.seconds) * 1000))
  const owed = (first - firstCounted) * perMessage
  const tally = await clients.stop()
  const cpu = process.cpuUsage(cpuBefore)
  clearInterval(timer)
  const latency = new Histogram()
  for (const [b, at] of tally.samples) latency.record(at - sentAt.get(b)!)
  const p = latency.percentiles()
  console.log(
    JSON.stringify({
      threads,
      subscribers,
      offeredPerSecond: Math.round(Number(values.rate)),
      deliveriesPerSecond: Math.round(tally.deliveries / tally.seconds),
      owedPerSecond: Math.round(owed / tally.seconds),
      p50: p.p50.toFixed(1),
      p99: p.p99.toFixed(1),
      serverCpu: ((cpu.user + cpu.system) / 1e6 / tally.seconds).toFixed(2),
      clientCpu: tally.cpuShare.toFixed(2),
    }),
  )
  for (const w of workers) w.postMessage('stop')
  await clients.close()
}

if (isMainThread) await main()
else if (workerData === 'serve') serve()
