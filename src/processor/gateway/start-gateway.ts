/**
 * Composes the wallet gateway (PROCESSOR.md §2): the chain's directory and reads, the explorer (history
 * over REST, one live subscription for transfer notifications), the shared database (submissions, status
 * and relayer notifications, connection claims) and the uWebSockets.js server with `/ws`, `/health`,
 * `/ready` and `/metrics`.
 * The database is handed in, so one process can share it with the submitter; `stop()` leaves it open.
 */
import { randomBytes } from 'node:crypto'
import uWS from 'uWebSockets.js'
import type { GatewayOptions } from '../../config/index.js'
import type { ProcessorServices } from '../db/index.js'
import { listenUws } from '../../platform/http/index.js'
import { serviceMetrics } from '../../platform/observability/index.js'
import { ExplorerClient } from '../../sdk/index.js'
import { openGatewayChain } from './chain/gateway-chain.js'
import { watchBalances } from './chain/watch-balances.js'
import { ConnectionRegistry } from './connection/connection-registry.js'
import { registerSocket } from './connection/register-socket.js'
import { followTransfers } from './explorer/follow-transfers.js'
import type { GatewayContext } from './handlers/context.js'
import { operatorGauges } from './health/operator-gauges.js'
import { registerHealth } from './health/register-health.js'
import { listenNotifications } from './pushes/listen-notifications.js'
import { monitorRelayer } from './pushes/relayer-monitor.js'
import { closeCodes } from '../../wire/index.js'

export interface RunningGateway {
  url: string
  wsUrl: string
  connections(): number
  stop(): Promise<void>
}

export type GatewayServices = ProcessorServices

export async function startGateway(options: GatewayOptions, { db, log, metrics = serviceMetrics('gateway') }: GatewayServices): Promise<RunningGateway> {
  const { limits } = options
  const chain = await openGatewayChain({ ...options, log })
  const registry = new ConnectionRegistry(randomBytes(8).toString('hex'), limits)
  const explorer = new ExplorerClient({ baseUrl: options.explorerUrl, onError: (error) => log.warn('explorer live feed', { error }) })
  const stops: (() => Promise<void> | void)[] = [() => chain.stop()]
  const stopAll = async () => {
    while (stops.length > 0) await stops.pop()!()
  }
  try {
    const relayer = await monitorRelayer({ sql: db.pool, refreshMs: options.relayerRefreshMs, staleMs: options.relayerStaleMs, log })
    stops.push(() => relayer.stop())
    const accepted = metrics.counter('submissions_accepted_total', 'Submissions queued for the submitter, by kind (payment, acquiring)')
    const countAccepted = (kind: string) => accepted(1, { kind })
    const ctx: GatewayContext = { chainId: options.chainId, contract: options.contract, chain, db, explorer, registry, relayer, limits, countAccepted, log }
    const listener = await listenNotifications(db, registry, relayer, chain, log)
    stops.push(() => listener.close())
    const transfers = followTransfers(explorer, registry, log)
    stops.push(() => transfers.stop())
    const balances = watchBalances(chain, registry, options.pollIntervalMs, log)
    stops.push(() => balances.stop())

    const app = uWS.App()
    registerSocket(app, ctx, { chainId: options.chainId, maxMessageBytes: limits.maxMessageBytes, maxSeparators: limits.maxSeparators }, limits)
    registerHealth(app, { relayer, connections: () => registry.all.size, db, metrics, log })
    const gauges = operatorGauges({ relayer, db, metrics, log })
    stops.push(() => gauges.stop())
    const listenSocket = await listenUws(app, { host: options.host, port: options.port, portSetting: 'GATEWAY_PORT' })
    stops.push(() => {
      uWS.us_listen_socket_close(listenSocket)
      registry.closeAll(closeCodes.shutdown, 'gateway shutting down')
    })
    const sweepMs = Math.min(1000, (Math.min(limits.firstMessageSeconds, limits.idleSeconds) * 1000) / 4)
    const sweep = setInterval(() => registry.sweep(Date.now(), limits), sweepMs)
    stops.push(() => clearInterval(sweep))

    const url = `http://${options.host}:${uWS.us_socket_local_port(listenSocket)}`
    const wsUrl = `${url.replace(/^http/, 'ws')}/ws`
    log.info('wallet gateway listening', { wsUrl, chainId: options.chainId, contract: options.contract, tokens: chain.tokens().map((t) => t.symbol) })
    return {
      url,
      wsUrl,
      connections: () => registry.all.size,
      async stop() {
        await stopAll()
        log.info('wallet gateway stopped')
      },
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}
