/**
 * The fan-out load generator: thousands of WebSocket subscribers held by one C process
 * (ws-fanout-client.c), compiled here with gcc on first use. A generator in Node took most of the
 * second core at 1M messages/s and so measured itself as much as the server; the C one parses frame
 * headers at memory speed and leaves that core to the server's kernel work.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process'
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { SettlementFilter } from '../../src/explorer/query/index.js'
import { BENCH_DIR } from '../data/bench-store.js'

export interface FanoutOptions {
  host: string
  port: number
  filters: SettlementFilter[]
  /** Every `sampleEvery`-th subscriber records (blockNumber, receive time) for each message. */
  sampleEvery: number
  maxSamples: number
}

export interface FanoutTally {
  deliveries: number
  /** Payload bytes of those deliveries. */
  bytes: number
  seconds: number
  /** CPU time the client process used in the window, as a share of one core. */
  cpuShare: number
  /** [blockNumber, epoch ms] of sampled deliveries. */
  samples: [number, number][]
  closes: Record<string, number>
  open: number
}

const SOURCE = fileURLToPath(new URL('./ws-fanout-client.c', import.meta.url))
const BINARY = join(BENCH_DIR, 'ws-fanout-client')

/** Compiles the client when the binary is missing or older than its source; throws with the install hint without gcc. */
function compiledClient(): string {
  const built = statSync(BINARY, { throwIfNoEntry: false })
  if (built && built.mtimeMs >= statSync(SOURCE).mtimeMs) return BINARY
  mkdirSync(BENCH_DIR, { recursive: true })
  const gcc = spawnSync('gcc', ['-O2', '-Wall', '-o', BINARY, SOURCE], { encoding: 'utf8' })
  if (gcc.error) throw new Error('the fan-out bench compiles its subscriber client in C and found no gcc on PATH: install it with `apt-get install gcc`')
  if (gcc.status !== 0) throw new Error(`gcc could not compile ${SOURCE}:\n${gcc.stderr}`)
  return BINARY
}

export class NativeSubscribers {
  #child: ChildProcessByStdio<Writable, Readable, null>
  #lines: AsyncIterator<string>

  private constructor(child: ChildProcessByStdio<Writable, Readable, null>) {
    this.#child = child
    this.#lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  }

  /** Opens every connection and resolves when each is subscribed. */
  static async connect(o: FanoutOptions): Promise<NativeSubscribers> {
    const file = join(BENCH_DIR, `fanout-subscribe-${process.pid}.txt`)
    const subscribe = (filter: SettlementFilter) => JSON.stringify({ type: 'SUBSCRIBE', channel: 'settlements', ...(Object.keys(filter).length > 0 ? { filter } : {}) })
    writeFileSync(file, o.filters.map(subscribe).join('\n'))
    const child = spawn(compiledClient(), [o.host, String(o.port), file, String(o.sampleEvery), String(o.maxSamples)], { stdio: ['pipe', 'pipe', 'inherit'] })
    const clients = new NativeSubscribers(child)
    const ready = await clients.#line().finally(() => rmSync(file, { force: true }))
    if (!ready.startsWith('ready')) throw new Error(`ws-fanout-client did not get ready: ${ready}`)
    return clients
  }

  start(): void {
    this.#child.stdin.write('start\n')
  }

  /** Ends the window; the tally covers the time since `start`, and another window may follow. */
  async stop(): Promise<FanoutTally> {
    this.#child.stdin.write('stop\n')
    return JSON.parse(await this.#line()) as FanoutTally
  }

  /** Closing its stdin ends the client. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return
    const exited = new Promise((resolve) => this.#child.once('exit', resolve))
    this.#child.stdin.end()
    await exited
  }

  async #line(): Promise<string> {
    const next = await this.#lines.next()
    if (next.done) throw new Error('ws-fanout-client exited early (see its message above)')
    return next.value
  }
}
