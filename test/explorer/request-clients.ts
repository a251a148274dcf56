/**
 * The clients of test/explorer/request-caps.test.ts, for the test itself and for its flood, which runs
 * in a worker thread (request-flood.ts) so that sending and reading 1,200 requests does not take the
 * event loop the explorer answers on: GETs on connections of their own (or a kept-alive one), and
 * exports read slowly from a chosen loopback address.
 */
import { request, type Agent } from 'node:http'
import { connect } from 'node:net'

export interface Answer {
  status: number
  headers: Record<string, string>
  body: string
  ms: number
}

/**
 * A GET answered within `timeoutMs` (a timeout answers status 0): over its own connection, or over
 * `agent`'s kept-alive one (a client already connected when the flood comes, so that what it measures is
 * the explorer, not the kernel's queue of connections not yet accepted, which 1,200 at once overflow).
 */
export function get(url: URL, path: string, agent?: Agent, timeoutMs = 30_000): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path, agent: agent ?? false, headers: agent ? {} : { connection: 'close' }, timeout: timeoutMs }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body, ms: performance.now() - started }))
    })
    const fail = () => resolve({ status: 0, headers: {}, body: '', ms: performance.now() - started })
    req.on('timeout', () => req.destroy())
    req.on('error', fail)
    req.end()
  })
}

/** An export read slowly from `localAddress`: one socket read every 500 ms, until the server ends or cuts it. */
export interface SlowExport {
  /** Ends the connection from this side. */
  close(): void
  /** Reads at full speed from now on (a paused reader sees the server's end only once it read what came before). */
  drain(): void
  /** The status line's code, once it came (0: the connection ended before). */
  status: Promise<number>
  /** Once the connection ended: the response's first 4 KiB, its last 5 bytes, and when it ended. */
  done: Promise<ExportEnd>
}

/** How an export's connection ended: the response's first 4 KiB, its last 5 bytes, and when. */
export interface ExportEnd {
  head: Uint8Array
  tail: Uint8Array
  endedAfterMs: number
}

export const LAST_CHUNK = Buffer.from('0\r\n\r\n')

export function slowExport(at: URL, localAddress: string, path: string): SlowExport {
  const started = performance.now()
  const socket = connect({ host: at.hostname, port: Number(at.port), localAddress })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${at.host}\r\nConnection: close\r\n\r\n`)
  let slow = true
  let head = Buffer.alloc(0)
  let tail = Buffer.alloc(0)
  let resolveStatus!: (status: number) => void
  const status = new Promise<number>((resolve) => (resolveStatus = resolve))
  const done = new Promise<ExportEnd>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      if (head.length === 0) resolveStatus(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1', 0, 16))?.[1] ?? 0))
      if (head.length < 4096) head = Buffer.concat([head, chunk.subarray(0, 4096 - head.length)])
      tail = Buffer.concat([tail, chunk]).subarray(-LAST_CHUNK.length)
      if (!slow) return
      socket.pause()
      // Not unref'd: a paused socket does not keep a thread's event loop alive, this timer does.
      setTimeout(() => socket.resume(), 500)
    })
    socket.on('close', () => {
      resolveStatus(0)
      resolve({ head, tail, endedAfterMs: performance.now() - started })
    })
    socket.on('error', () => {})
  })
  const drain = () => {
    slow = false
    socket.resume()
  }
  return { status, done, close: () => socket.destroy(), drain }
}
