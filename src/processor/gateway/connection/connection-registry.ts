/**
 * The gateway's connections: all of them, and the one bound to each address (one connection per
 * address: binding a newer one closes the older with 4001, here or — through `boundElsewhere` — on
 * another gateway process). A sweep closes connections that sent no valid signed message in time (4002)
 * or nothing at all for too long (4003). New connections are admitted up to GATEWAY_MAX_CONNECTIONS in
 * all and GATEWAY_MAX_CONNECTIONS_PER_IP per client address (address-limits.ts).
 */
import type { Hex } from 'viem'
import type { GatewayLimits } from '../../../config/index.js'
import type { TokenBucket } from '../../../platform/limits/index.js'
import { closeCodes } from '../../../wire/index.js'
import { AddressLimits } from './address-limits.js'
import type { GatewayConnection } from './gateway-connection.js'

export interface ConnectionTimeouts {
  firstMessageSeconds: number
  idleSeconds: number
}

export class ConnectionRegistry {
  readonly all = new Set<GatewayConnection>()
  /** Connections with at least one BALANCE subscription (what the balance watch reads for). */
  readonly balanceWatchers = new Set<GatewayConnection>()
  readonly #byAddress = new Map<Hex, GatewayConnection>()
  readonly #addresses: AddressLimits

  constructor(
    /** Tells two gateway processes apart when both bind an address in the same millisecond. */
    readonly instance: string,
    private readonly limits: GatewayLimits,
  ) {
    this.#addresses = new AddressLimits(limits)
  }

  /** Why a new connection from `remoteAddress` is refused: the gateway's cap, or the address's; `undefined`: welcome. */
  refusal(remoteAddress: string): 'gateway' | 'address' | undefined {
    if (this.all.size >= this.limits.maxConnections) return 'gateway'
    if (!this.#addresses.admits(remoteAddress)) return 'address'
    return undefined
  }

  /** The message budget the connections of `remoteAddress` share, counting one more of them. */
  admit(remoteAddress: string, now: number): TokenBucket {
    return this.#addresses.add(remoteAddress, now)
  }

  add(conn: GatewayConnection): void {
    this.all.add(conn)
  }

  remove(conn: GatewayConnection): void {
    if (this.all.delete(conn)) this.#addresses.remove(conn.remoteAddress)
    this.balanceWatchers.delete(conn)
    if (conn.address && this.#byAddress.get(conn.address) === conn) this.#byAddress.delete(conn.address)
  }

  get(address: Hex): GatewayConnection | undefined {
    return this.#byAddress.get(address)
  }

  bind(conn: GatewayConnection, address: Hex, at: number): void {
    conn.address = address
    conn.boundAt = at
    const older = this.#byAddress.get(address)
    this.#byAddress.set(address, conn)
    if (older && older !== conn) supersede(older)
  }

  /** Another gateway bound `address` at `at`: a connection here bound before that gives way. */
  boundElsewhere(address: Hex, at: number, instance: string): void {
    const conn = this.#byAddress.get(address)
    if (!conn || instance === this.instance) return
    if (conn.boundAt < at || (conn.boundAt === at && this.instance < instance)) supersede(conn)
  }

  sweep(now: number, timeouts: ConnectionTimeouts): void {
    this.#addresses.sweep(now)
    const firstBy = now - timeouts.firstMessageSeconds * 1000
    const idleSince = now - timeouts.idleSeconds * 1000
    for (const conn of this.all) {
      if (!conn.address && conn.openedAt < firstBy) {
        conn.close(closeCodes.noFirstMessage, `no valid signed message within ${timeouts.firstMessageSeconds} s`)
      } else if (conn.lastMessageAt < idleSince) {
        conn.close(closeCodes.idle, `idle for ${timeouts.idleSeconds} s`)
      }
    }
  }

  closeAll(code: number, reason: string): void {
    for (const conn of [...this.all]) conn.close(code, reason)
  }
}

function supersede(conn: GatewayConnection): void {
  conn.close(closeCodes.superseded, 'superseded')
}
