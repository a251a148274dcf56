/**
 * TRANSFER_NOTIFICATION: one subscription to the explorer's live feed per gateway process (every
 * settlement, through the SDK, which resumes from its cursor after a drop), dispatched to the
 * connections bound to the payer or the recipient that subscribed to the settlement's token. A wallet
 * paying itself is told once, as OUT. Settlements a reorg takes back are not announced (the protocol has
 * no message for it; history reflects them).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Hex } from 'viem'
import type { Logger } from '../../../platform/observability/index.js'
import type { ExplorerClient } from '../../../sdk/index.js'
import type { Settlement } from '../../../wire/index.js'
import type { ConnectionRegistry } from '../connection/connection-registry.js'
import { transferOf } from './transfer-of.js'

export interface TransferFeed {
  stop(): Promise<void>
}

const MAX_RETRY_MS = 10_000

export function followTransfers(explorer: ExplorerClient, registry: ConnectionRegistry, log: Logger): TransferFeed {
  const stopping = new AbortController()
  explorer.onSettlement((settlement) => dispatch(registry, settlement))
  // The SDK reconnects by itself once it has been open; until then (the explorer may start later) retry here.
  const connected = (async () => {
    for (let delay = 250, failures = 0; !stopping.signal.aborted; delay = Math.min(delay * 2, MAX_RETRY_MS), failures++) {
      try {
        await explorer.connect()
        if (failures > 0) log.info('explorer live feed connected', { url: explorer.wsUrl })
        return
      } catch (error) {
        if (stopping.signal.aborted) return
        // One warning per outage; the retries after it are debug lines.
        const report = failures === 0 ? log.warn : log.debug
        report('explorer live feed unavailable; retrying', { url: explorer.wsUrl, error })
        await sleep(delay, undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  })()
  return {
    async stop() {
      stopping.abort()
      await explorer.disconnect()
      await connected
    },
  }
}

function dispatch(registry: ConnectionRegistry, settlement: Settlement): void {
  for (const wallet of new Set<Hex>([settlement.payer, settlement.recipient])) {
    const conn = registry.get(wallet)
    if (conn?.transfers.has(settlement.domainSeparator)) conn.send({ type: 'TRANSFER_NOTIFICATION', transfer: transferOf(settlement, wallet) })
  }
}
