/**
 * Hostile sockets beside the soak's real load (issue 21, items 4, 13 and 14), all from 127.0.0.2 (Linux
 * routes the whole of 127/8 to loopback; the client binds that local address), so that the per-address
 * limits they run into are not the ones of the soak's own wallets and subscribers on 127.0.0.1:
 * - a gateway flood: more connections than GATEWAY_MAX_CONNECTIONS_PER_IP (256) kept open, each sending
 *   unsigned junk, together faster than GATEWAY_IP_MESSAGES_PER_SECOND (200);
 * - an explorer flood: more WebSocket connections than WS_MAX_CONNECTIONS_PER_IP (256), of which
 *   `readers` subscribe to every settlement from the chain's start and then never read a byte (their
 *   socket is paused), so the explorer has to bound what it buffers for them.
 * A connection that is closed or refused is opened again after a pause while the flood runs.
 */
import WebSocket from 'ws'
import { encodeCursor } from '../../src/explorer/store/index.js'

export const FLOOD_ADDRESS = '127.0.0.2'

export interface FloodStats {
  /** Upgrades accepted. */
  opened: number
  /** Upgrades refused, by HTTP status. */
  refused: Record<string, number>
  /** Closes, by WebSocket close code. */
  closes: Record<string, number>
  /** Gateway answers to the junk, by error code. */
  answers: Record<string, number>
  sent: number
  /** Connection errors that were not an HTTP refusal (by message). */
  errors: Record<string, number>
}

export interface SocketFloodOptions {
  gatewayWsUrl: string
  explorerUrl: string
  /** Connections each flood keeps trying to hold. */
  connections: number
  /** Junk messages a second to the gateway over all its connections. */
  messagesPerSecond: number
  /** Explorer connections that subscribe from the start and never read. */
  readers: number
  signal: AbortSignal
}

const REOPEN_MS = 1_000
/** How long a never-reading subscriber holds its connection before a fresh one takes its place. */
const READER_HOLD_MS = 60_000
const FROM_THE_START = encodeCursor(0, 0)
const emptyStats = (): FloodStats => ({ opened: 0, refused: {}, closes: {}, answers: {}, sent: 0, errors: {} })
const bump = (counts: Record<string, number>, key: string) => void (counts[key] = (counts[key] ?? 0) + 1)

export function startSocketFlood(opts: SocketFloodOptions): { gateway: FloodStats; explorer: FloodStats; done: Promise<void> } {
  const gateway = emptyStats()
  const explorer = emptyStats()
  const sockets = new Set<WebSocket>()
  const explorerWsUrl = `${opts.explorerUrl.replace(/^http/, 'ws')}/stream`

  /** Holds one connection open as long as the flood runs, opening it again after each close or refusal. */
  function hold(url: string, stats: FloodStats, onOpen: (socket: WebSocket) => void): void {
    if (opts.signal.aborted) return
    const socket = new WebSocket(url, { localAddress: FLOOD_ADDRESS, handshakeTimeout: 10_000 })
    sockets.add(socket)
    let refused = false
    socket.on('unexpected-response', (_request, response) => {
      refused = true
      bump(stats.refused, String(response.statusCode))
      response.resume()
      socket.terminate()
    })
    let opened = false
    socket.on('open', () => {
      opened = true
      stats.opened++
      onOpen(socket)
    })
    socket.on('message', (data) => {
      if (stats !== gateway) return
      try {
        bump(gateway.answers, (JSON.parse(String(data)) as { errorCode?: string }).errorCode ?? 'other')
      } catch {
        bump(gateway.answers, 'unreadable')
      }
    })
    socket.on('error', (error) => {
      if (!refused) bump(stats.errors, error.message.split(':')[0]!.slice(0, 60))
    })
    socket.on('close', (code) => {
      sockets.delete(socket)
      // Only connections that opened count (a refused connect is an error), and not the flood's own ending.
      if (opened && !opts.signal.aborted) bump(stats.closes, String(code))
      setTimeout(() => hold(url, stats, onOpen), REOPEN_MS).unref()
    })
  }

  for (let i = 0; i < opts.connections; i++) hold(opts.gatewayWsUrl, gateway, () => {})
  for (let i = 0; i < opts.connections; i++) {
    const reader = i < opts.readers
    hold(explorerWsUrl, explorer, (socket) => {
      if (!reader) return
      socket.send(JSON.stringify({ type: 'SUBSCRIBE', channel: 'settlements', id: 'all', filter: {}, since: FROM_THE_START }), () => {
        // Never reads again: the kernel's buffers fill, then the explorer's. A paused socket would not see
        // the explorer's close either, so each reader gives up after a while and a fresh one replays again.
        ;(socket as unknown as { _socket?: { pause(): void } })._socket?.pause()
        setTimeout(() => socket.terminate(), READER_HOLD_MS).unref()
      })
    })
  }

  // Junk to the gateway: each tick sends to open connections in turn, at `messagesPerSecond` in all.
  const TICK_MS = 50
  const perTick = Math.max(1, Math.round((opts.messagesPerSecond * TICK_MS) / 1000))
  const junk = JSON.stringify({ type: 'GET_NONCE', payload: { requestId: 'flood' } })
  const timer = setInterval(() => {
    let left = perTick
    for (const socket of sockets) {
      if (left === 0) break
      if (socket.readyState !== WebSocket.OPEN || !socket.url.startsWith(opts.gatewayWsUrl)) continue
      socket.send(junk)
      gateway.sent++
      left--
    }
  }, TICK_MS)

  const done = new Promise<void>((resolve) => {
    opts.signal.addEventListener('abort', () => {
      clearInterval(timer)
      for (const socket of sockets) socket.terminate()
      resolve()
    }, { once: true })
  })
  return { gateway, explorer, done }
}

/** One line of a flood's counts for the report. */
export function describeFlood(stats: FloodStats): string {
  const list = (counts: Record<string, number>) => Object.entries(counts).sort().map(([k, n]) => `${k}: ${n}`).join(', ') || 'none'
  return `${stats.opened} opened; upgrades refused ${list(stats.refused)}; closes ${list(stats.closes)}${stats.sent > 0 ? `; ${stats.sent} junk messages, answers ${list(stats.answers)}` : ''}${Object.keys(stats.errors).length > 0 ? `; errors ${list(stats.errors)}` : ''}`
}
