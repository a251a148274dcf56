/**
 * The whole product in one process, as `npm start` runs it: devnet (anvil + contracts), PostgreSQL
 * (embedded unless DATABASE_URL is set), the explorer, the data service, the wallet gateway with its
 * broadcast submitter, the certificate authority, the checkout engine with webhook delivery, the checkout
 * widget, the demo store with its registered demo merchant, and demo traffic that pays through the gateway
 * with the SDK's WalletClient. Each piece is started in order and stopped in reverse order on Ctrl-C.
 *
 * The devnet is a fresh chain every time, so the explorer's data directory and the embedded database
 * start empty too: state from an earlier chain would describe transactions that no longer exist.
 */
import { rmSync } from 'node:fs'
import { createChainClient, readDirectory } from '../../chain/index.js'
import { startDevnet } from '../local-devnet/index.js'
import { onShutdown } from '../../platform/shutdown/index.js'
import { CaClient, readLocalAdminToken, startCa } from '../../processor/ca/index.js'
import { startCheckout } from '../../processor/checkout/index.js'
import { openSecretBox, startWebhookDelivery } from '../../processor/webhooks/index.js'
import { caOptionsFromEnv, checkoutOptionsFromEnv, databaseOptionsFromEnv, dataServiceOptionsFromEnv, demoStoreOptionsFromEnv, explorerOptionsFromEnv, gatewayOptionsFromEnv, logLevelSetting, submitterSettingsFromEnv, webhookOptionsFromEnv, widgetOptionsFromEnv } from '../../config/index.js'
import { startDataService } from '../../processor/data-service/index.js'
import { setUpDemoMerchant, startDemoStore } from '../demo-store/index.js'
import { embeddedServerRunningError, openDatabase, runningEmbeddedPostgres } from '../../processor/db/index.js'
import { startGateway } from '../../processor/gateway/index.js'
import { createLogger, serviceMetrics } from '../../platform/observability/index.js'
import { startExplorer } from '../../explorer/index.js'
import { startSubmitter } from '../../processor/submitter/index.js'
import { startWidget } from '../../processor/widget/index.js'
import { createProgressPrinter, runWalletTraffic } from '../traffic/index.js'
import type { StartDevnetOptions, TrafficSettings } from '../flags/index.js'

export interface StackSettings {
  devnet: StartDevnetOptions
  traffic: TrafficSettings
  /** No traffic progress line. */
  quiet: boolean
}

export async function runStack({ devnet: settings, traffic: trafficSettings, quiet }: StackSettings): Promise<void> {
  const log = createLogger(logLevelSetting(process.env, 'warn'))
  /** Stop functions, run last-started-first on shutdown. */
  const stops: (() => Promise<void>)[] = []
  onShutdown(async () => {
    for (const stop of stops.reverse()) await stop()
  })

  const databaseOptions = databaseOptionsFromEnv()
  if (!databaseOptions.url) {
    // Emptying the directory under a server still running there (a second `npm start`) would break it.
    const running = runningEmbeddedPostgres(databaseOptions.embeddedDir)
    if (running) throw embeddedServerRunningError(databaseOptions.embeddedDir, running)
    rmSync(databaseOptions.embeddedDir, { recursive: true, force: true })
  }
  const devnet = await startDevnet(settings)
  stops.push(devnet.stop)
  const { deployment } = devnet
  console.log(`devnet:       ${deployment.rpcUrl}, settlement contract ${deployment.settlementContract}; wrote ${devnet.deploymentPath}`)

  const db = await openDatabase(databaseOptions, log)
  stops.push(db.close)
  // The embedded server's URL is printed so that `npm run admin` and other pieces can share it.
  console.log(`postgres:     ${databaseOptions.url ? 'DATABASE_URL' : `embedded, DATABASE_URL=${db.url} (data in ${databaseOptions.embeddedDir})`}`)

  const explorerDataDir = process.env.DATA_DIR ?? '.data/devnet-explorer'
  rmSync(explorerDataDir, { recursive: true, force: true })
  const chainEnv = { ...process.env, CHAIN_ID: String(deployment.chainId), RPC_URL: deployment.rpcUrl, SETTLEMENT_CONTRACT: undefined, START_BLOCK: undefined }
  const explorer = await startExplorer(explorerOptionsFromEnv({ ...chainEnv, DATA_DIR: explorerDataDir }, deployment), { log: log.child({ service: 'explorer' }) })
  stops.push(explorer.stop)
  console.log(`explorer:     ${explorer.url}/ (the web page, for a browser; JSON at ${explorer.url}/events, WebSocket ${explorer.url.replace('http', 'ws')}/stream)`)

  const dataService = await startDataService(dataServiceOptionsFromEnv(chainEnv, deployment), { log })
  stops.push(dataService.stop)
  console.log(`data service: ${dataService.url}/config`)

  const processorEnv = { ...chainEnv, EXPLORER_URL: explorer.url }
  const gateway = await startGateway(gatewayOptionsFromEnv(processorEnv, deployment), { db, log })
  stops.push(gateway.stop)
  const submitter = await startSubmitter(submitterSettingsFromEnv(processorEnv, deployment), { db, log })
  stops.push(submitter.stop)
  console.log(`gateway:      ${gateway.wsUrl} (health ${gateway.url}/health), broadcast submitter for relayer ${submitter.relayer}`)

  const caOptions = caOptionsFromEnv(chainEnv)
  const ca = await startCa(caOptions, { db, log })
  stops.push(ca.stop)
  console.log(`ca:           ${ca.url} (admin token in ${ca.adminTokenFile ?? 'CA_ADMIN_TOKEN'}; npm run admin -- create-merchant …)`)

  const checkoutMetrics = serviceMetrics('checkout')
  const checkout = await startCheckout(checkoutOptionsFromEnv(processorEnv, deployment), { db, log, metrics: checkoutMetrics })
  stops.push(checkout.stop)
  const webhookOptions = webhookOptionsFromEnv(processorEnv)
  const webhooks = await startWebhookDelivery(webhookOptions, { db, log, metrics: checkoutMetrics })
  stops.push(webhooks.stop)
  console.log(`checkout:     ${checkout.url}/api/v1/charges (mutual TLS, client certificates from the CA) with webhook delivery`)

  const widget = await startWidget(widgetOptionsFromEnv(processorEnv, deployment), { db, log })
  stops.push(widget.stop)
  console.log(`widget:       ${widget.url}/s/<chargeId> (payment pages)`)

  // The demo merchant (certificate, key, webhook secret under .data/demo-merchant) is registered
  // through the CA's admin API like any merchant, then the store buys with it.
  const storeOptions = demoStoreOptionsFromEnv({ ...processorEnv, CHECKOUT_URL: checkout.url, DATA_SERVICE_URL: dataService.url })
  const merchant = await setUpDemoMerchant({
    db,
    sealer: await openSecretBox(webhookOptions),
    ca: new CaClient({ url: ca.url, token: caOptions.adminToken ?? readLocalAdminToken(caOptions.dataDir) }),
    dir: storeOptions.merchantDir,
    webhookUrl: `http://${storeOptions.host}:${storeOptions.port}/webhooks`,
  })
  const store = await startDemoStore(storeOptions, { log })
  stops.push(store.stop)
  console.log(`demo store:   merchant ${merchant.merchantId}, credentials in ${storeOptions.merchantDir}`)
  console.log(`\nopen ${store.url} (the demo store) and ${explorer.url}/ (the explorer)\n`)

  const traffic = new AbortController()
  const directory = await readDirectory({ publicClient: createChainClient({ rpcUrl: deployment.rpcUrl }), settlementContract: deployment.settlementContract, fromBlock: BigInt(deployment.startBlock) })
  const trafficDone = runWalletTraffic({
    deployment,
    directory,
    gatewayUrl: gateway.wsUrl,
    ...trafficSettings,
    signal: traffic.signal,
    onProgress: quiet ? undefined : createProgressPrinter({ suffix: ` — open ${store.url}` }),
  })
  stops.push(async () => {
    traffic.abort()
    await trafficDone.catch(() => {})
  })
  await trafficDone
}
