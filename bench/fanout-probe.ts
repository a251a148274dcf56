/**
 * Fan-out probe for the live layer: the real LiveHub and WebSocket route on a uWS app (no chain, no
 * indexer), fed synthetic committed settlements at a fixed rate, against many raw WebSocket
 * subscribers held by a child process. Reports settlements/s published, deliveries/s received and
 * commit-to-delivery latency percentiles.
 *
 *   npx tsx bench/fanout-probe.ts [--subscribers 10000] [--unfiltered 0.2] [--recipients 100]
 *                                 [--rate 500] [--commits 20] [--seconds 10] [--sample 50]
 *
 * Each settlement's `amount` carries the commit time in microseconds, so a subscriber computes the
 * latency from its own clock (same machine). Clients count frames from WebSocket headers only and
 * decode one connection in `--sample` to read latencies, so they stay cheaper than the server.
 * With taskset available the server is pinned to CPU 0 and the clients to CPU 1.
 */
import { fork, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import uWS from 'uWebSockets.js'
import { createLogger } from '../src/observability/logger.js'
import { Metrics } from '../src/observability/metrics.js'
import { TokenCache } from '../src/query/token-cache.js'
import { encodeHexKey } from '../src/store/keys.js'
import { openStore } from '../src/store/open-store.js'
import { fieldHex, toStored, type StoredSettlement } from '../src/store/record.js'
import { registerLive } from '../src/server/live/index.js'
import type { Hex } from '../src/types/settlement.js'

interface Options {
  subscribers: number
  unfiltered: number
  recipients: number
  rate: number
  commits: number
  seconds: number
  sample: number
}

function readOptions(argv: string[]): Options {
  const options: Options = { subscribers: 10_000, unfiltered: 0.2, recipients: 100, rate: 500, commits: 20, seconds: 10, sample: 50 }
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!.replace(/^--/, '') as keyof Options
    if (!(name in options)) throw new Error(`unknown option --${name}`)
    options[name] = Number(argv[i + 1])
  }
  return options
}

const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000)
const recipientOf = (i: number) => `0x4e${i.toString(16).padStart(38, '0')}` as Hex
const TOKEN = `0x70${'0'.repeat(38)}` as Hex

// ---------------------------------------------------------------- clients (child process)

interface ClientReport {
  frames: number
  seconds: number
  latenciesMs: number[]
}

function runClients(port: number, o: Options): void {
  const sockets: Socket[] = []
  let acked = 0
  let frames = 0
  let counting = false
  let startedAt = 0
  const latencies: number[] = []
  const key = Buffer.from('dGhlIHNhbXBsZSBub25jZQ==')

  const textFrame = (text: string) => {
    const payload = Buffer.from(text)
    // Client frames must be masked; an all-zero mask leaves the payload as it is.
    const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255, 0, 0, 0, 0])
    return Buffer.concat([header, payload])
  }

  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const sampled = i % o.sample === 0
      const filter = i < Math.round(o.subscribers * o.unfiltered) ? {} : { recipient: recipientOf(i % o.recipients) }
      const socket = connect(port, '127.0.0.1')
      let upgraded = false
      let rest: Buffer | undefined
      let first = true
      socket.on('error', reject)
      socket.on('connect', () => {
        socket.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
      })
      socket.on('data', (chunk: Buffer) => {
        let data = rest ? Buffer.concat([rest, chunk]) : chunk
        rest = undefined
        if (!upgraded) {
          const end = data.indexOf('\r\n\r\n')
          if (end < 0) return void (rest = data)
          if (!data.subarray(0, 12).toString().includes('101')) return reject(new Error(data.toString()))
          upgraded = true
          data = data.subarray(end + 4)
          socket.write(textFrame(JSON.stringify({ type: 'SUBSCRIBE', channel: 'settlements', filter })))
          resolve()
        }
        let at = 0
        while (data.length - at >= 2) {
          const len7 = data[at + 1]! & 0x7f
          const headerBytes = len7 < 126 ? 2 : len7 === 126 ? 4 : 10
          if (data.length - at < headerBytes) break
          const length = len7 < 126 ? len7 : len7 === 126 ? data.readUInt16BE(at + 2) : Number(data.readBigUInt64BE(at + 2))
          if (data.length - at < headerBytes + length) break
          if ((data[at]! & 0x0f) === 1) {
            if (first) {
              first = false
              acked++
            } else if (counting) {
              frames++
              if (sampled) {
                const payload = data.subarray(at + headerBytes, at + headerBytes + length).toString('latin1')
                const a = payload.indexOf('"amount":"') + 10
                latencies.push((nowMicros() - Number(payload.slice(a, payload.indexOf('"', a)))) / 1000)
              }
            }
          }
          at += headerBytes + length
        }
        if (at < data.length) rest = Buffer.from(data.subarray(at))
      })
      sockets.push(socket)
    })

  process.on('message', async (m: { cmd: string }) => {
    if (m.cmd === 'start') {
      counting = true
      startedAt = performance.now()
    } else if (m.cmd === 'report') {
      const report: ClientReport = { frames, seconds: (performance.now() - startedAt) / 1000, latenciesMs: latencies }
      process.send!(report)
      for (const s of sockets) s.destroy()
      process.exit(0)
    }
  })

  void (async () => {
    for (let i = 0; i < o.subscribers; i += 200) await Promise.all(Array.from({ length: Math.min(200, o.subscribers - i) }, (_, k) => open(i + k)))
    while (acked < o.subscribers) await new Promise((resolve) => setTimeout(resolve, 20))
    process.send!({ ready: true })
  })()
}

// ---------------------------------------------------------------- server (this process)

function settlement(n: number, committedAt: number): StoredSettlement {
  const hex32 = (value: number) => `0x${value.toString(16).padStart(64, '0')}` as const
  return toStored(
    {
      blockNumber: 1_000 + Math.floor(n / 100),
      logIndex: n % 100,
      blockHash: hex32(0),
      timestamp: 1_700_000_000 + Math.floor(n / 100),
      txHash: hex32(n),
      token: TOKEN,
      payer: `0x9a${(n % 5000).toString(16).padStart(38, '0')}`,
      recipient: recipientOf(n % 1000),
      amount: BigInt(committedAt),
      fee: 2_500_000n,
      reference: `0x${n.toString(16).padStart(32, '0')}${'0'.repeat(32)}`,
      domainSeparator: `0x${'dd'.repeat(32)}`,
    },
    n + 1,
  )
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN

async function main(): Promise<void> {
  const o = readOptions(process.argv.slice(2))
  const dir = mkdtempSync(join(tmpdir(), 'fanout-probe-'))
  const store = openStore({ path: dir, noSync: true })
  await store.tokens.put(encodeHexKey(TOKEN), { address: TOKEN, symbol: 'USDC', decimals: 6 })
  const app = uWS.App()
  const metrics = new Metrics()
  const limits = { maxConnections: o.subscribers + 10, maxSubscriptionsPerConnection: 4, maxMessageBytes: 4096, maxBufferedBytes: 1 << 20, idleTimeoutSeconds: 960, sseHeartbeatSeconds: 15 }
  const hub = registerLive(app, { store, tokens: new TokenCache(store), limits, metrics, logger: createLogger('warn', { service: 'probe' }) })
  const listen = await new Promise<uWS.us_listen_socket>((resolve) => app.listen('127.0.0.1', 0, (s) => resolve(s as uWS.us_listen_socket)))
  const port = uWS.us_socket_local_port(listen)
  const pin = spawnSync('taskset', ['-cp', '0', String(process.pid)]).status === 0

  const child = fork(new URL(import.meta.url).pathname, ['--clients', String(port), ...process.argv.slice(2)], { execArgv: ['--import', 'tsx'] })
  if (pin && child.pid) spawnSync('taskset', ['-cp', '1', String(child.pid)])
  await new Promise<void>((resolve) => child.once('message', () => resolve()))
  console.log(`${o.subscribers} subscribers connected (${Math.round(o.subscribers * o.unfiltered)} unfiltered, the rest by recipient over ${o.recipients})${pin ? '; server on CPU 0, clients on CPU 1' : ''}`)

  child.send({ cmd: 'start' })
  const perCommit = Math.max(1, Math.round(o.rate / o.commits))
  const unfiltered = Math.round(o.subscribers * o.unfiltered)
  const byRecipient = filteredPerRecipient(o)
  let n = 0
  let expected = 0
  let publishMs = 0
  const started = performance.now()
  const timer = setInterval(() => {
    const at = nowMicros()
    const batch = Array.from({ length: perCommit }, () => settlement(n++, at))
    for (const s of batch) {
      const r = Number.parseInt(fieldHex(s, 'recipient').slice(-8), 16) % 1000
      expected += unfiltered + (byRecipient[r] ?? 0)
    }
    const t0 = performance.now()
    hub.committed(batch)
    publishMs += performance.now() - t0
  }, 1000 / o.commits)
  await new Promise((resolve) => setTimeout(resolve, o.seconds * 1000))
  clearInterval(timer)
  const elapsed = (performance.now() - started) / 1000
  await new Promise((resolve) => setTimeout(resolve, 1500))
  child.send({ cmd: 'report' })
  // Past its capacity the client process may not answer; the server's own count still stands.
  const report = await new Promise<ClientReport>((resolve) => {
    const none = { frames: NaN, seconds: NaN, latenciesMs: [] }
    const timer = setTimeout(() => resolve(none), 20_000)
    child.once('message', (m) => (clearTimeout(timer), resolve(m as ClientReport)))
    child.once('exit', () => (clearTimeout(timer), resolve(none)))
  })
  child.kill()
  const handedToSockets = Number(metrics.render().match(/live_messages_sent_total\{channel="websocket",type="SETTLEMENT"\} (\d+)/)?.[1] ?? 0)
  const sorted = report.latenciesMs.sort((a, b) => a - b)
  const result = {
    subscribers: o.subscribers,
    settlementsPublished: n,
    settlementsPerSecond: Math.round(n / elapsed),
    deliveriesExpected: expected,
    deliveriesReceived: report.frames,
    deliveriesPerSecond: Math.round(report.frames / elapsed),
    serverDeliveriesPerSecond: Math.round(handedToSockets / elapsed),
    serverPublishCpuShare: Number((publishMs / 1000 / elapsed).toFixed(2)),
    latencyMs: { samples: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) },
    slowConsumerCloses: metrics.render().match(/live_slow_consumer_closes_total\{[^}]*\} (\d+)/)?.[1] ?? '0',
  }
  console.log(JSON.stringify(result, null, 2))
  hub.close()
  uWS.us_listen_socket_close(listen)
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}

/** Filtered subscribers per recipient: subscriber i (past the unfiltered ones) watches recipient i % recipients. */
function filteredPerRecipient(o: Options): number[] {
  const counts = new Array<number>(o.recipients).fill(0)
  for (let i = Math.round(o.subscribers * o.unfiltered); i < o.subscribers; i++) counts[i % o.recipients]!++
  return counts
}

if (process.argv[2] === '--clients') runClients(Number(process.argv[3]), readOptions(process.argv.slice(4)))
else await main()
