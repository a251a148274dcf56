/**
 * A WebSocket fan-out load generator over raw sockets: thousands of subscribers in one process, each
 * frame's header parsed and counted without decoding the text (a WebSocket client library would be
 * the ceiling long before the server). A share of the subscribers is sampled: their messages are
 * read for the block number, with the receive time, so latency can be joined with commit times.
 */
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import type { SettlementFilter } from '../../src/query/events-query.js'

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
  seconds: number
  /** CPU time this process used in the window, as a share of one core. */
  cpuShare: number
  /** [blockNumber, epoch ms] of sampled deliveries. */
  samples: [number, number][]
  closes: Record<string, number>
  open: number
}

const now = () => performance.timeOrigin + performance.now()
const BLOCK_NUMBER = /"blockNumber":(\d+)/

function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4)
  const header = payload.length < 126 ? Buffer.from([0x80 | opcode, 0x80 | payload.length]) : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff])
  const masked = Buffer.from(payload)
  for (let i = 0; i < masked.length; i++) masked[i]! ^= mask[i & 3]!
  return Buffer.concat([header, mask, masked])
}

class Subscriber {
  socket: Socket
  buffer: Buffer = Buffer.alloc(0)
  upgraded = false
  subscribed = false

  constructor(
    private readonly o: FanoutOptions,
    private readonly filter: SettlementFilter,
    private readonly sampled: boolean,
    private readonly tally: Tally,
    subscribed: () => void,
  ) {
    this.socket = connect({ host: o.host, port: o.port }, () => {
      const key = randomBytes(16).toString('base64')
      this.socket.write(`GET /stream HTTP/1.1\r\nhost: ${o.host}:${o.port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ${key}\r\nsec-websocket-version: 13\r\n\r\n`)
    })
    this.socket.setNoDelay(true)
    this.socket.on('error', () => {})
    this.socket.on('close', () => tally.open--)
    this.onSubscribed = subscribed
  }

  onSubscribed: () => void

  onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    if (!this.upgraded) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      if (!this.buffer.toString('latin1', 0, 12).includes('101')) throw new Error(`upgrade refused: ${this.buffer.toString('latin1', 0, end)}`)
      this.upgraded = true
      this.tally.open++
      this.buffer = this.buffer.subarray(end + 4)
      const subscribe = { type: 'SUBSCRIBE', channel: 'settlements', ...(Object.keys(this.filter).length > 0 ? { filter: this.filter } : {}) }
      this.socket.write(frame(1, Buffer.from(JSON.stringify(subscribe))))
    }
    let at = 0
    const buf = this.buffer
    while (buf.length - at >= 2) {
      const opcode = buf[at]! & 0x0f
      let length = buf[at + 1]! & 0x7f
      let header = 2
      if (length === 126) {
        if (buf.length - at < 4) break
        length = buf.readUInt16BE(at + 2)
        header = 4
      } else if (length === 127) {
        if (buf.length - at < 10) break
        length = Number(buf.readBigUInt64BE(at + 2))
        header = 10
      }
      if (buf.length - at < header + length) break
      const payloadAt = at + header
      if (opcode === 1) this.onText(buf, payloadAt, length)
      else if (opcode === 9) this.socket.write(frame(10, buf.subarray(payloadAt, payloadAt + length)))
      else if (opcode === 8) {
        const code = length >= 2 ? buf.readUInt16BE(payloadAt) : 1005
        this.tally.closes[code] = (this.tally.closes[code] ?? 0) + 1
      }
      at = payloadAt + length
    }
    this.buffer = at === buf.length ? Buffer.alloc(0) : buf.subarray(at)
  }

  onText(buf: Buffer, at: number, length: number): void {
    if (!this.subscribed && buf.toString('latin1', at, at + Math.min(length, 24)).includes('"SUBSCRIBED"')) {
      this.subscribed = true
      this.onSubscribed()
      return
    }
    if (!this.tally.measuring) return
    this.tally.deliveries++
    if (this.sampled && this.tally.samples.length < this.o.maxSamples) {
      const match = BLOCK_NUMBER.exec(buf.toString('latin1', at, at + Math.min(length, 200)))
      if (match) this.tally.samples.push([Number(match[1]), now()])
    }
  }
}

interface Tally {
  measuring: boolean
  deliveries: number
  samples: [number, number][]
  closes: Record<string, number>
  open: number
}

export class FanoutClients {
  #tally: Tally = { measuring: false, deliveries: 0, samples: [], closes: {}, open: 0 }
  #subscribers: Subscriber[] = []
  #startedAt = 0
  #cpuAt = process.cpuUsage()

  constructor(private readonly o: FanoutOptions) {}

  /** Opens every connection (a few hundred handshakes at a time) and resolves when all are subscribed. */
  async connect(): Promise<void> {
    const batch = 200
    for (let i = 0; i < this.o.filters.length; i += batch) {
      await Promise.all(
        this.o.filters.slice(i, i + batch).map(
          (filter, j) =>
            new Promise<void>((resolve, reject) => {
              const s = new Subscriber(this.o, filter, (i + j) % this.o.sampleEvery === 0, this.#tally, resolve)
              s.socket.on('data', (chunk: Buffer) => {
                try {
                  s.onData(chunk)
                } catch (error) {
                  reject(error as Error)
                }
              })
              s.socket.once('close', () => reject(new Error('a subscriber connection closed before it was subscribed')))
              this.#subscribers.push(s)
            }),
        ),
      )
    }
  }

  start(): void {
    this.#tally.measuring = true
    this.#startedAt = performance.now()
    this.#cpuAt = process.cpuUsage()
  }

  stop(): FanoutTally {
    this.#tally.measuring = false
    const seconds = (performance.now() - this.#startedAt) / 1000
    const cpu = process.cpuUsage(this.#cpuAt)
    const cpuShare = (cpu.user + cpu.system) / 1e6 / seconds
    const { deliveries, samples, closes, open } = this.#tally
    for (const s of this.#subscribers) s.socket.destroy()
    return { deliveries, seconds, cpuShare, samples, closes, open }
  }
}
