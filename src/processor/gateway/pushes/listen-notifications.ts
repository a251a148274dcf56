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
import type { ConnectionRegistry } from '../connection/connection-registry.js'
import type { RelayerMonitor } from './relayer-monitor.js'

export function listenNotifications(db: Database, registry: ConnectionRegistry, relayer: RelayerMonitor, log: Logger): Promise<Listener> {
  const onNotify = (channel: string, payload: string) => {
    try {
      if (channel === channels.status) pushStatus(registry, JSON.parse(payload) as StatusNotice)
      else if (channel === channels.relayer) void relayer.refresh()
      else if (channel === claimChannel) {
        const claim = JSON.parse(payload) as ConnectionClaim
        registry.boundElsewhere(claim.address, claim.at, claim.instance)
      }
    } catch (error) {
      log.warn('unreadable notification', { channel, error: (error as Error).message })
    }
  }
  return db.listen([channels.status, channels.relayer, claimChannel], onNotify, () => void relayer.refresh())
}

function pushStatus(registry: ConnectionRegistry, { callerAddress, ...status }: StatusNotice): void {
  registry.get(callerAddress.toLowerCase() as Hex)?.send({ type: 'SUBMISSION_STATUS', ...status })
}
