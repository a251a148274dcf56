/**
 * Composes the demo store (PROCESSOR.md §6): the token it sells in and the payment pages' origin from the
 * data service's `/config`, the typed merchant API client (the demo merchant's files are read when used, so the
 * store may start before `setUpDemoMerchant` writes them), the in-memory orders, the demo wallet on the
 * devnet, and the pages on fastify (platform/route-server) with the operator's `/ready` (the demo merchant's files are there
 * to pay and verify with) and `/metrics`.
 */
import type { DemoStoreOptions } from '../../config/index.js'
import { ConfigError } from '../../config/index.js'
import { fetchConfig } from '../demo-wallet/index.js'
import { serviceMetrics, type Logger, type Metrics } from '../../platform/observability/index.js'
import { operatorRoutes, serveRoutes } from '../../platform/route-server/index.js'
import { demoWalletPayments } from './demo-wallet-payments.js'
import { linkAndReportRoutes } from './link-and-report-routes.js'
import { MerchantClient } from '../../processor/merchant-client/index.js'
import { merchantFilesMissing, readClientCredentials } from './merchant-files.js'
import { createOrderBook, type Order } from './order-book.js'
import { storeNotFound, storeRoutes } from './store-routes.js'

export interface DemoStoreServices {
  log: Logger
  /** Served at `/metrics`; a `demo_store_` registry with the process gauges unless one is handed in. */
  metrics?: Metrics
}

export interface RunningDemoStore {
  /** `http://host:port` as bound; the merchant's webhook URL is `<url>/webhooks`. */
  url: string
  /** Newest first. */
  orders(): Order[]
  stop(): Promise<void>
}

export async function startDemoStore(options: DemoStoreOptions, { log, metrics = serviceMetrics('demo_store') }: DemoStoreServices): Promise<RunningDemoStore> {
  const config = await fetchConfig(options.dataServiceUrl).catch((error: Error) => {
    throw new ConfigError(`DATA_SERVICE_URL: ${error.message}`, { cause: error })
  })
  const token = config.supportedTokens.find((t) => t.symbol === options.currency)
  if (!token) throw new ConfigError(`STORE_CURRENCY ${options.currency} is not a supported token (${config.supportedTokens.map((t) => t.symbol).join(', ')})`)
  // The files are read before each request: a certificate setUpDemoMerchant renews is used at once.
  const api = new MerchantClient({ baseUrl: options.checkoutUrl, credentials: () => readClientCredentials(options.merchantDir) })
  const book = createOrderBook()
  const routes = storeRoutes({
    api,
    book,
    token,
    display: { symbol: token.symbol, decimals: token.decimals, baseFee: BigInt(config.baseFeeAmount), explorerUrl: config.explorerUrl },
    beneficiary: options.beneficiary,
    merchantDir: options.merchantDir,
    widgetOrigin: new URL(config.checkoutWidgetUrl).origin,
    demoWallet: options.demoWallet && demoWalletPayments({ api, book, rpcUrl: options.demoWallet.rpcUrl, dataServiceUrl: options.dataServiceUrl, log }),
    log,
  })
  metrics.collected('orders', 'Orders in memory', () => book.list().length)
  routes.push(...linkAndReportRoutes({ api, token, beneficiary: options.beneficiary, log }), ...operatorRoutes({ ready: () => merchantFilesMissing(options.merchantDir), metrics }))
  const server = await serveRoutes({ host: options.host, port: options.port, portSetting: 'STORE_PORT', routes, notFound: storeNotFound, metrics, log })
  log.info('demo store listening', { url: server.url, currency: token.symbol, beneficiary: options.beneficiary, demoWallet: Boolean(options.demoWallet) })
  return {
    url: server.url,
    orders: () => book.list(),
    async stop() {
      await server.close()
      await api.close()
      log.info('demo store stopped')
    },
  }
}
