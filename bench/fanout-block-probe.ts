/**
 * What one block costs the server per socket and per send, by how many messages each socket gets: a bare
 * uWS server (the explorer's settings: no compression, one topic) with N unfiltered subscribers in the C
 * client (ws-fanout-client.c) publishes blocks of k messages of the explorer's size (624 bytes), then
 * reports the server's send syscalls and CPU per socket-block. Issue 20 measured with it that uWS
 * already writes a socket's share of a block in one send up to its 16 KB cork buffer (about 25 such
 * messages), then one send per 16 KB, plus one more when a socket gets over 32 messages in a loop turn
 * (uWS's TopicTree drains a subscriber at 32); and that each send costs about 10 µs on loopback, nearly
 * whatever its size. `--mode cork` sends from JavaScript instead (ws.cork, then ws.send per message):
 * fewer sends for big shares, but no less CPU.
 *
 *   npx tsx bench/fanout-block-probe.ts [--subscribers 2000] [--sizes 1,8,24,31,40,64] [--mode topic|cork]
 *
 * Needs perf (syscall tracepoints) for the send counts; without it they read 'no perf'.
 */
import { parseArgs } from 'node:util'
import uWS from 'uWebSockets.js'
import { NativeSubscribers } from './load/ws-fanout-native.js'
import { countSends } from './profile/count-sends.js'

const PORT = 9431
const BLOCKS = 20
const BLOCK_INTERVAL_MS = 150
const PAD = 'x'.repeat(560)
const message = (block: number, i: number) => `{"type":"SETTLEMENT","data":{"blockNumber":${block},"logIndex":${i},"pad":"${PAD}"},"cursor":"${block}-${i}"}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const { values } = parseArgs({ options: { subscribers: { type: 'string', default: '2000' }, sizes: { type: 'string', default: '1,8,24,31,40,64' }, mode: { type: 'string', default: 'topic' } } })
const subscribers = Number(values.subscribers)
const mode = values.mode === 'cork' ? 'cork' : 'topic'

const app = uWS.App()
const sockets = new Set<uWS.WebSocket<unknown>>()
app.ws('/stream', {
  compression: uWS.DISABLED,
  maxBackpressure: 64 * 1024 * 1024,
  message(ws) {
    ws.subscribe('all')
    sockets.add(ws)
    ws.send('{"type":"SUBSCRIBED"}')
  },
  close: (ws) => void sockets.delete(ws),
})
const listening = await new Promise<uWS.us_listen_socket | false>((resolve) => app.listen('127.0.0.1', PORT, resolve))
if (!listening) throw new Error(`port ${PORT} is taken`)
const clients = await NativeSubscribers.connect({ host: '127.0.0.1', port: PORT, filters: Array.from({ length: subscribers }, () => ({})), sampleEvery: 1_000_000, maxSamples: 1 })

let block = 0
for (const k of values.sizes!.split(',').map(Number)) {
  const stopCounting = countSends(process.pid, { thread: true })
  await sleep(500) // perf attaches
  const cpuBefore = process.cpuUsage()
  clients.start()
  for (let b = 0; b < BLOCKS; b++) {
    block++
    const messages = Array.from({ length: k }, (_, i) => message(block, i))
    if (mode === 'topic') for (const m of messages) app.publish('all', m)
    else for (const ws of sockets) ws.cork(() => messages.forEach((m) => ws.send(m)))
    await sleep(BLOCK_INTERVAL_MS)
  }
  const cpu = process.cpuUsage(cpuBefore)
  const tally = await clients.stop()
  const sends = await stopCounting()
  const socketBlocks = BLOCKS * subscribers
  const cpuUs = cpu.user + cpu.system
  console.log(
    JSON.stringify({
      mode,
      messagesPerSocket: k,
      subscribers,
      delivered: tally.deliveries,
      owed: socketBlocks * k,
      sendsPerSocketBlock: sends === undefined ? 'no perf' : Number((sends / socketBlocks).toFixed(2)),
      cpuUsPerSocketBlock: Number((cpuUs / socketBlocks).toFixed(2)),
      cpuUsPerDelivery: Number((cpuUs / (socketBlocks * k)).toFixed(3)),
    }),
  )
}
await clients.close()
uWS.us_listen_socket_close(listening)
process.exit(0)
