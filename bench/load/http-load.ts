/**
 * A bounded HTTP/1.1 load generator over raw keep-alive sockets (no client library in the hot path,
 * so the generator is not the ceiling). Two modes:
 * - closed loop: `connections` × `pipeline` requests always in flight, as fast as the server answers;
 * - fixed rate: requests are scheduled at `rate` per second and latency counts from the scheduled
 *   time, so a stalled server cannot hide its queue (no coordinated omission).
 */
import { connect, type Socket } from 'node:net'
import { Histogram, type Percentiles } from '../lib/histogram.js'

export interface LoadOptions {
  host: string
  port: number
  /** Request paths, used in turn. */
  paths: string[]
  connections: number
  /** Requests in flight per connection (closed loop only). */
  pipeline?: number
  /** Requests per second across all connections; closed loop when absent. */
  rate?: number
  durationMs: number
  warmupMs?: number
}

export interface LoadResult extends Percentiles {
  requestsPerSecond: number
  non200: number
  bytesPerResponse: number
  seconds: number
}

const HEADER_END = Buffer.from('\r\n\r\n')

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const requests = o.paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nhost: ${o.host}:${o.port}\r\n\r\n`))
  const histogram = new Histogram()
  const pipeline = o.rate ? 1 : (o.pipeline ?? 1)
  const warmupMs = o.warmupMs ?? 500
  let nextPath = 0
  let measuring = false
  let stopping = false
  let completed = 0
  let non200 = 0
  let bodyBytes = 0
  const backlog: number[] = []
  const idle: Conn[] = []

  class Conn {
    socket: Socket
    sent: number[] = []
    buffer: Buffer = Buffer.alloc(0)
    constructor(ready: () => void) {
      this.socket = connect({ host: o.host, port: o.port }, ready)
      this.socket.setNoDelay(true)
      this.socket.on('data', (chunk: Buffer) => this.onData(chunk))
      this.socket.on('error', () => {})
    }
    send(count: number, at?: number): void {
      const parts: Buffer[] = []
      for (let i = 0; i < count; i++) {
        parts.push(requests[nextPath++ % requests.length]!)
        this.sent.push(at ?? performance.now())
      }
      this.socket.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts))
    }
    onData(chunk: Buffer): void {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
      let done = 0
      for (;;) {
        const end = this.buffer.indexOf(HEADER_END)
        if (end < 0) break
        const head = this.buffer.toString('latin1', 0, end).toLowerCase()
        const lengthAt = head.indexOf('content-length:')
        const length = lengthAt < 0 ? 0 : Number.parseInt(head.slice(lengthAt + 15), 10)
        const total = end + 4 + length
        if (this.buffer.length < total) break
        const status = head.slice(9, 12)
        this.buffer = this.buffer.subarray(total)
        const sentAt = this.sent.shift()!
        done++
        if (measuring) {
          histogram.record(performance.now() - sentAt)
          completed++
          bodyBytes += length
          if (status !== '200') non200++
        }
      }
      if (done === 0 || stopping) return
      if (o.rate) {
        if (backlog.length > 0) this.send(1, backlog.shift())
        else idle.push(this)
      } else this.send(done)
    }
  }

  const conns: Conn[] = []
  await Promise.all(Array.from({ length: o.connections }, () => new Promise<void>((resolve) => conns.push(new Conn(resolve)))))

  const started = performance.now()
  let measureStart = started
  setTimeout(() => {
    measuring = true
    measureStart = performance.now()
  }, warmupMs)

  let timer: NodeJS.Timeout | undefined
  if (o.rate) {
    idle.push(...conns)
    let scheduled = 0
    timer = setInterval(() => {
      const now = performance.now()
      const due = Math.floor(((now - started) / 1000) * o.rate!)
      for (; scheduled < due; scheduled++) {
        const at = started + (scheduled / o.rate!) * 1000
        const conn = idle.pop()
        if (conn) conn.send(1, at)
        else backlog.push(at)
      }
    }, 1)
  } else for (const c of conns) c.send(pipeline)

  await new Promise((resolve) => setTimeout(resolve, warmupMs + o.durationMs))
  stopping = true
  const seconds = (performance.now() - measureStart) / 1000
  if (timer) clearInterval(timer)
  for (const c of conns) c.socket.destroy()
  return {
    ...histogram.percentiles(),
    requestsPerSecond: Math.round(completed / seconds),
    non200,
    bytesPerResponse: completed > 0 ? Math.round(bodyBytes / completed) : 0,
    seconds,
  }
}
