/**
 * Composes the checkout widget (PROCESSOR.md §5): the supported tokens from the settlement contract (for
 * display units; the chain must be CHAIN_ID), the LISTEN connection for live status, and the payment
 * pages on fastify (platform/route-server) with the operator's `/ready` (the database answers, the chain is read) and `/metrics`. The database is handed in and left open on `stop()`, so `npm start` can share one.
 */
import { createChainClient, endpointsOf } from '../../chain/index.js'
import { openChargeTerms } from '../checkout/index.js'
import type { WidgetOptions } from '../../config/index.js'
import type { ProcessorServices } from '../db/index.js'
import { databaseUnavailable } from '../db/index.js'
import { serviceMetrics } from '../../platform/observability/index.js'
import { operatorRoutes, serveRoutes } from '../../platform/route-server/index.js'
import { watchCharges } from './charge-watch.js'
import { linkRoutes } from './link-routes.js'
import { liveStreams } from './live-streams.js'
import { sharedStatus } from './shared-status.js'
import { refundRoutes } from './refund-routes.js'
import { widgetNotFound, widgetRoutes, type WidgetContext } from './routes.js'

export type WidgetServices = ProcessorServices

export interface RunningWidget {
  /** `http://host:port` as bound. */
  url: string
  /** The base of the payment links it hands out (WidgetOptions.publicUrl, else `url`). */
  publicUrl: string
  stop(): Promise<void>
}

export async function startWidget(options: WidgetOptions, { db, log, metrics = serviceMetrics('widget') }: WidgetServices): Promise<RunningWidget> {
  const publicClient = createChainClient({ ...endpointsOf(options), chainId: options.chainId, pollingIntervalMs: options.pollIntervalMs, log })
  const terms = await openChargeTerms(options, publicClient, log)
  const charges = await watchCharges(db).catch((error: unknown) => {
    terms.stop()
    throw error
  })
  let publicUrl = options.publicUrl ?? ''
  const context: WidgetContext = {
    db,
    log,
    live: liveStreams(options.liveStreams, sharedStatus(charges, log, metrics), metrics),
    token: (address) => terms.token(address),
    session: { chainId: options.chainId, settlementContract: options.contract, walletGatewayUrl: options.walletGatewayUrl },
    explorerUrl: options.explorerUrl,
    publicUrl: () => publicUrl,
    linkIntervalSeconds: options.linkIntervalSeconds,
  }
  const routes = widgetRoutes(context)
  const ready = async () => {
    const chainError = terms.lastError()
    return (await databaseUnavailable(db.pool)) ?? (chainError && `the node at RPC_URL fails (${chainError.message.split('\n')[0]})`)
  }
  routes.push(...refundRoutes(context), ...linkRoutes({ db, terms, limits: options.paymentLinks }), ...operatorRoutes({ ready, metrics }))
  const server = await serveRoutes({ host: options.host, port: options.port, portSetting: 'WIDGET_PORT', routes, notFound: widgetNotFound, metrics, log }).catch(async (error: unknown) => {
    terms.stop()
    await charges.close()
    throw error
  })
  publicUrl ||= server.url
  log.info('checkout widget listening', { url: server.url, publicUrl, chainId: options.chainId })
  return {
    url: server.url,
    publicUrl,
    async stop() {
      await server.close()
      await charges.close()
      terms.stop()
      log.info('checkout widget stopped')
    },
  }
}
