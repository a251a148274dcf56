/**
 * Admission of live connections: at most `maxConnections` WebSocket and SSE connections together, at most
 * `maxConnectionsPerAddress` of them from one address — counted here for one hub, or for every server
 * thread together when they share the count (`SharedConnections`). A refusal is answered before the
 * WebSocket upgrade or the SSE headers, as a problem: 503 at the server's cap, 429 at the address's.
 */
import type { LiveLimits } from '../../../config/index.js'
import { ConnectionsPerAddress, type SharedConnections } from '../../../platform/limits/index.js'
import { problemReply } from '../../../platform/http/index.js'
import type { LiveConnection } from './live-connection.js'

export type Refusal = 'server' | 'address'

export class LiveAdmission {
  /** Every admitted connection still open. */
  readonly connections = new Set<LiveConnection>()
  #websockets = new Set<LiveConnection>()
  /** Counts live connections against the caps: this hub's own, or every server thread's together. */
  #caps: Pick<SharedConnections, 'refusal' | 'add' | 'remove'>

  constructor(limits: LiveLimits, shared: SharedConnections | undefined) {
    this.#caps = shared ?? this.#ownCaps(limits)
  }

  get websocketCount(): number {
    return this.#websockets.size
  }

  get sseCount(): number {
    return this.connections.size - this.#websockets.size
  }

  /** Why a new connection from `address` is refused: the server's cap, or the address's; `undefined`: welcome. */
  refusal(address: string): Refusal | undefined {
    return this.#caps.refusal(address)
  }

  admit(conn: LiveConnection): void {
    this.connections.add(conn)
    this.#caps.add(conn.address)
    if (conn.channel === 'websocket') this.#websockets.add(conn)
  }

  /** The connection closed; a second call for it changes nothing. */
  release(conn: LiveConnection): void {
    if (this.connections.delete(conn)) this.#caps.remove(conn.address)
    this.#websockets.delete(conn)
  }

  #ownCaps(limits: LiveLimits): Pick<SharedConnections, 'refusal' | 'add' | 'remove'> {
    const addresses = new ConnectionsPerAddress(limits.maxConnectionsPerAddress)
    return {
      refusal: (address) => (this.connections.size >= limits.maxConnections ? 'server' : addresses.admits(address) ? undefined : 'address'),
      add: (address) => addresses.add(address),
      remove: (address) => addresses.remove(address),
    }
  }
}

/** The answer refusing a new live connection from `address` (503 at the server's cap, 429 at the address's), or `undefined`. */
export function admission(hub: { refusal(address: string): Refusal | undefined }, address: string, limits: LiveLimits) {
  const refusal = hub.refusal(address)
  if (refusal === 'server') {
    const detail = `the explorer serves at most ${limits.maxConnections} live connections at a time; retry later`
    return { code: 'TOO_MANY_CONNECTIONS', reply: problemReply(503, detail, undefined, { 'retry-after': '5' }) }
  }
  if (refusal === 'address') {
    const detail = `the explorer serves at most ${limits.maxConnectionsPerAddress} live connections (WebSocket and SSE) to one address; close one or retry later`
    return { code: 'TOO_MANY_CONNECTIONS_PER_IP', reply: problemReply(429, detail, undefined, { 'retry-after': '5' }) }
  }
  return undefined
}
