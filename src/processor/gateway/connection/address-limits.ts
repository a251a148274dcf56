/**
 * What one client address may hold across all of its connections: at most GATEWAY_MAX_CONNECTIONS_PER_IP
 * sockets, and one message budget (GATEWAY_IP_MESSAGE_BURST, then GATEWAY_IP_MESSAGES_PER_SECOND)
 * shared by them, so that many sockets do not multiply the per-connection rate. A budget outlives the
 * address's last connection until it is full again: reconnecting hands out no fresh burst.
 */
import type { GatewayLimits } from '../../../config/index.js'
import { ConnectionsPerAddress, TokenBucket, type RateLimit } from '../../../platform/limits/index.js'

export class AddressLimits {
  readonly #open: ConnectionsPerAddress
  readonly #budgets = new Map<string, TokenBucket>()
  readonly #rate: RateLimit

  constructor(limits: GatewayLimits) {
    this.#open = new ConnectionsPerAddress(limits.maxConnectionsPerAddress)
    this.#rate = { perSecond: limits.addressMessagesPerSecond, burst: limits.addressMessageBurst }
  }

  admits(address: string): boolean {
    return this.#open.admits(address)
  }

  /** A connection from `address` opened; returns the address's message budget. */
  add(address: string, now: number): TokenBucket {
    this.#open.add(address)
    let budget = this.#budgets.get(address)
    if (!budget) this.#budgets.set(address, (budget = new TokenBucket(this.#rate, now)))
    return budget
  }

  remove(address: string): void {
    this.#open.remove(address)
  }

  /** Forgets the budgets of addresses without connections that have refilled. */
  sweep(now: number): void {
    for (const [address, budget] of this.#budgets) if (!this.#open.holds(address) && budget.isFull(now)) this.#budgets.delete(address)
  }
}
