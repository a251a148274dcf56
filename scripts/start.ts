/**
 * `npm start`: the whole local stack in one process — devnet (anvil + contracts), PostgreSQL (embedded
 * unless DATABASE_URL is set), the explorer, the data service, the wallet gateway with its broadcast
 * submitter, the certificate authority, the checkout engine with webhook delivery, the checkout widget,
 * the demo store with its registered demo merchant, and demo traffic that pays through the gateway with
 * the SDK's WalletClient. Each piece is started in order and stopped in reverse order on Ctrl-C, in a
 * session of its own so that Ctrl-C does not stop anvil and PostgreSQL under the pieces (own-session.ts).
 *
 * The devnet is a fresh chain every time, so the explorer's data directory and the embedded database
 * start empty too: state from an earlier chain would describe transactions that no longer exist.
 */
import { rmSync } from 'node:fs'
import { readDirectory } from '../src/chain/index.js'
import { createChainClient } from '../src/chain/index.js'
import { startDevnet } from '../src/devnet/local-devnet/index.js'
import { devnetOptions, devnetOptionsFromFlags, devnetUsage } from '../src/devnet/cli/index.js'
import { onShutdown, runInOwnSession } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/devnet/cli/index.js'
import { trafficOptions, trafficSettingsFromFlags, trafficUsage } from '../src/devnet/cli/index.js'
import { CaClient, readLocalAdminToken, startCa } from '../src/processor/ca/index.js'
import { startCheckout } from '../src/processor/checkout/index.js'
import { startWebhookDelivery } from '../src/processor/webhooks/index.js'
import { caOptionsFromEnv } from '../src/config/index.js'
import { checkoutOptionsFromEnv } from '../src/config/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { dataServiceOptionsFromEnv } from '../src/config/index.js'
import { explorerOptionsFromEnv } from '../src/config/index.js'
import { gatewayOptionsFromEnv } from '../src/config/index.js'
import { logLevelSetting } from '../src/config/index.js'
import { submitterSettingsFromEnv } from '../src/config/index.js'
import { webhookOptionsFromEnv } from '../src/config/index.js'
import { demoStoreOptionsFromEnv } from '../src/config/index.js'
import { widgetOptionsFromEnv } from '../src/config/index.js'
import { startDataService } from '../src/processor/data-service/index.js'
import { setUpDemoMerchant, startDemoStore } from '../src/devnet/demo-store/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { startGateway } from '../src/processor/gateway/index.js'
import { createLogger } from '../src/platform/observability/index.js'
import { startExplorer } from '../src/explorer/index.js'
import { startSubmitter } from '../src/processor/submitter/index.js'
import { startWidget } from '../src/processor/widget/index.js'
import { createProgressPrinter } from '../src/devnet/traffic/index.js'
import { runWalletTraffic } from '../src/devnet/traffic/index.js'

runCli(
  {
    name: 'start',
    usage: `usage: npm start [-- options]

Starts the local devnet (anvil on 127.0.0.1:8545, chain 31337, contracts deployed), PostgreSQL (embedded
in .data/postgres unless DATABASE_URL is set), the explorer on http://127.0.0.1:4001 (EXPLORER_PORT), the
data service on :4002 (DATA_SERVICE_PORT), the wallet gateway with its broadcast submitter on :4000
(GATEWAY_PORT), the certificate authority on :4005 (CA_PORT, local CA in .data/ca), the checkout engine
on https://127.0.0.1:4003 (CHECKOUT_PORT, mutual TLS) with webhook delivery, the checkout widget on
:4004 (WIDGET_PORT), the demo store on http://127.0.0.1:3000 (STORE_PORT) with its demo merchant, and
demo traffic paying through the gateway, until Ctrl-C.

${devnetUsage}
${trafficUsage}
  --quiet               no traffic progress line`,
    options: { ...devnetOptions, ...trafficOptions, quiet: { type: 'boolean' } },
  },
  async ({ values }) => {
    const devnetSettings = devnetOptionsFromFlags(values)
    const trafficSettings = trafficSettingsFromFlags(values)
    await runInOwnSession()
    const log = createLogger(logLevelSetting(process.env, 'warn'))
    /** Stop functions, run last-started-first on shutdown. */
    const stops: (() => Promise<void>)[] = []
    onShutdown(async () => {
      for (const stop of stops.reverse()) await stop()
    })

    const devnet = await startDevnet(devnetSettings)
    stops.push(devnet.stop)
    const { deployment } = devnet
    console.log(`devnet:       ${deployment.rpcUrl}, settlement contract ${deployment.settlementContract}; wrote ${devnetSettings.deploymentPath}`)

    const databaseOptions = databaseOptionsFromEnv()
    if (!databaseOptions.url) rmSync(databaseOptions.embeddedDir, { recursive: true, force: true })
    const db = await openDatabase(databaseOptions, log)
    stops.push(db.close)
    // The embedded server's URL is printed so that `npm run admin` and other pieces can share it.
    console.log(`postgres:     ${databaseOptions.url ? 'DATABASE_URL' : `embedded, DATABASE_URL=${db.url} (data in ${databaseOptions.embeddedDir})`}`)

    const explorerDataDir = process.env.DATA_DIR ?? '.data/devnet-explorer'
    rmSync(explorerDataDir, { recursive: true, force: true })
    const chainEnv = { ...process.env, CHAIN_ID: String(deployment.chainId), RPC_URL: deployment.rpcUrl, SETTLEMENT_CONTRACT: undefined, START_BLOCK: undefined }
    const explorer = await startExplorer(explorerOptionsFromEnv({ ...chainEnv, DATA_DIR: explorerDataDir }, deployment), { logger: log.child({ service: 'explorer' }) })
    stops.push(explorer.stop)
    console.log(`explorer:     ${explorer.url}/events (WebSocket ${explorer.url.replace('http', 'ws')}/stream)`)

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

    const checkout = await startCheckout(checkoutOptionsFromEnv(processorEnv, deployment), { db, log })
    stops.push(checkout.stop)
    const webhooks = await startWebhookDelivery(webhookOptionsFromEnv(processorEnv), { db, log })
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
      ca: new CaClient({ url: ca.url, token: caOptions.adminToken ?? readLocalAdminToken(caOptions.dataDir) }),
      dir: storeOptions.merchantDir,
      webhookUrl: `http://${storeOptions.host}:${storeOptions.port}/webhooks`,
    })
    const store = await startDemoStore(storeOptions, { log })
    stops.push(store.stop)
    console.log(`demo store:   merchant ${merchant.merchantId}, credentials in ${storeOptions.merchantDir}`)
    console.log(`\nopen ${store.url}\n`)

    const traffic = new AbortController()
    const directory = await readDirectory({ publicClient: createChainClient({ rpcUrl: deployment.rpcUrl }), settlementContract: deployment.settlementContract, fromBlock: BigInt(deployment.startBlock) })
    const trafficDone = runWalletTraffic({
      deployment,
      directory,
      gatewayUrl: gateway.wsUrl,
      ...trafficSettings,
      signal: traffic.signal,
      onProgress: values.quiet ? undefined : createProgressPrinter({ suffix: ` — open ${store.url}` }),
    })
    stops.push(async () => {
      traffic.abort()
      await trafficDone.catch(() => {})
    })
    await trafficDone
  },
)
