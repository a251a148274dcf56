/**
 * One wallet's WebSocket: the address it is bound to (by its first valid signed message), its message
 * budget, its subscriptions, and writes that are no-ops once the socket is gone (answers to slow
 * requests may arrive after the wallet left).
 */
import type { WebSocket } from 'uWebSockets.js'
import type { Hex } from 'viem'
import type { ServerMessage } from '../../../wire/index.js'
import type { TokenBucket } from '../../../platform/limits/index.js'
import { RateLimiter, type RateLimits } from './rate-limiter.js'

export interface SocketData {
  /** The client's IP address. */
  remoteAddress: string
  conn?: GatewayConnection
}

export class GatewayConnection {
  address: Hex | undefined
  /** When the address was bound (ms); decides which of two connections of an address is the newer. */
  boundAt = 0
  lastMessageAt: number
  open = true
  readonly limiter: RateLimiter
  /** BALANCE subscriptions: separator → the balance last told or read when subscribing. */
  readonly balances = new Map<Hex, bigint>()
  /** TRANSFERS subscriptions. */
  readonly transfers = new Set<Hex>()

  constructor(
    private readonly ws: WebSocket<SocketData>,
    readonly openedAt: number,
    limits: RateLimits,
    /** The client's IP address, and the message budget all of its connections share. */
    readonly remoteAddress: string,
    addressBudget: TokenBucket,
  ) {
    this.lastMessageAt = openedAt
    this.limiter = new RateLimiter(limits, openedAt, addressBudget)
  }

  send(message: ServerMessage): void {
    if (!this.open) return
    const text = JSON.stringify(message)
    this.ws.cork(() => this.ws.send(text, false))
  }

  close(code: number, reason: string): void {
    if (!this.open) return
    this.open = false
    this.ws.end(code, reason)
  }
}
