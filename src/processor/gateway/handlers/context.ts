/** What every message handler is given: the gateway's shared services and the caller's connection. */
import type { Hex } from 'viem'
import type { Database } from '../../db/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { ExplorerClient } from '../../../sdk/index.js'
import type { GatewayChain } from '../chain/gateway-chain.js'
import type { ConnectionRegistry } from '../connection/connection-registry.js'
import type { GatewayConnection } from '../connection/gateway-connection.js'
import type { VerifiedClientMessage } from '../input/read-client-message.js'
import type { RelayerMonitor } from '../pushes/relayer-monitor.js'
import type { ClientMessageType, ServerMessage } from '../../../wire/index.js'
import type { GatewayLimits } from '../../../config/index.js'

export interface GatewayContext {
  chainId: number
  /** The settlement contract, lower case. */
  contract: Hex
  chain: GatewayChain
  db: Database
  explorer: ExplorerClient
  registry: ConnectionRegistry
  /** The relayer status the active submitter last wrote, kept current by its NOTIFY (and /health's too). */
  relayer: RelayerMonitor
  /** The queue caps among them bound what one permit owner can make the submitter re-check. */
  limits: GatewayLimits
  /** Counts a submission queued (`gateway_submissions_accepted_total`), by its kind. */
  countAccepted(kind: 'payment' | 'acquiring'): void
  log: Logger
}

/** A connection that has been bound to its caller's address. */
export type BoundConnection = GatewayConnection & { address: Hex }

export type MessageOf<T extends ClientMessageType> = Extract<VerifiedClientMessage, { type: T }>

/** Answers one message, or throws a `GatewayRefusal`. */
export type Handler<T extends ClientMessageType> = (ctx: GatewayContext, conn: BoundConnection, message: MessageOf<T>) => Promise<ServerMessage>
