/**
 * The gateway's one LISTEN connection: submission status changes (pushed as SUBMISSION_STATUS to the
 * caller's socket, wherever in the fleet it is — each gateway delivers to the sockets it holds), relayer
 * status changes, and connections other gateways bound (one connection per address).
 */
import type { Hex } from 'viem'
import { claimChannel, type ConnectionClaim } from '../../db/index.js'
import type { Database } from '../../db/index.js'
import type { Listener } from '../../db/index.js'
import { channels, type StatusNotice } from '../../db/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import type { GatewayChain } from '../chain/gateway-chain.js'
import type { ConnectionRegistry } from '../connection/connection-registry.js'
import type { RelayerMonitor } from './relayer-monitor.js'

export function listenNotifications(db: Database, registry: ConnectionRegistry, relayer: RelayerMonitor, chain: GatewayChain, log: Logger): Promise<Listener> {
  const onNotify = (channel: string, payload: string) => {
    try {
      if (channel === channels.status) pushStatus(registry, chain, JSON.parse(payload) as StatusNotice)
      else if (channel === channels.relayer) void relayer.refresh()
      else if (channel === claimChannel) {
        const claim = JSON.parse(payload) as ConnectionClaim
        registry.boundElsewhere(claim.address, claim.at, claim.instance)
      }
    } catch (error) {
      log.warn('unreadable notification', { channel, error })
    }
  }
  return db.listen([channels.status, channels.relayer, claimChannel], onNotify, () => void relayer.refresh())
}

function pushStatus(registry: ConnectionRegistry, chain: GatewayChain, { callerAddress, ...status }: StatusNotice): void {
  // Before the wallet hears of it: its next nonce read must see the mined transaction.
  if (status.status === 'SUCCESS' || status.status === 'FAILURE') chain.ownerMoved(callerAddress)
  registry.get(callerAddress.toLowerCase() as Hex)?.send({ type: 'SUBMISSION_STATUS', ...status })
}
