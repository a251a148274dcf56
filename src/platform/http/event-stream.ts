/**
 * A server-sent event stream on a node:http response: named events with JSON data, a comment every
 * `heartbeatMs` so proxies and browsers keep the connection, and the browser's reconnect delay. The
 * caller learns when the client goes away through `onClose`.
 */
import type { ServerResponse } from 'node:http'

export interface EventStream {
  send(event: string, data: unknown): void
  onClose(handler: () => void): void
}

const HEARTBEAT_MS = 15_000
const RETRY_MS = 2_000

export function openEventStream(res: ServerResponse, heartbeatMs = HEARTBEAT_MS): EventStream {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' })
  res.write(`retry: ${RETRY_MS}\n\n`)
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs)
  const closeHandlers: (() => void)[] = []
  // The response's close: the client went away (or the server is stopping).
  res.once('close', () => {
    clearInterval(heartbeat)
    for (const handler of closeHandlers) handler()
  })
  return {
    send(event, data) {
      if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    onClose: (handler) => void closeHandlers.push(handler),
  }
}
