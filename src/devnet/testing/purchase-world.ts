/**
 * The whole processor for the browser tests, each piece the real one over real sockets: an anvil devnet,
 * an embedded PostgreSQL, the explorer, the wallet gateway with its broadcast submitter, the checkout
 * widget, the data service, the certificate authority, the checkout engine on mutual TLS with its webhook
 * delivery worker, and the demo store with its demo merchant set up as `npm start` does; plus a headless
 * Chromium from npm. Pieces that announce each other's URLs start in dependency order.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import type { Browser } from 'puppeteer-core'
import { Agent, fetch as tlsFetch } from 'undici'
import { readClientCredentials } from '../demo-store/index.js'
import { startCheckout, type RunningCheckout } from '../../processor/checkout/index.js'
import { openSecretBox, startWebhookDelivery, type WebhookDelivery } from '../../processor/webhooks/index.js'
import { checkoutOptionsFromEnv } from '../../config/index.js'
import { dataServiceOptionsFromEnv } from '../../config/index.js'
import { demoStoreOptionsFromEnv } from '../../config/index.js'
import { gatewayOptionsFromEnv } from '../../config/index.js'
import { webhookOptionsFromEnv } from '../../config/index.js'
import { widgetOptionsFromEnv } from '../../config/index.js'
import { startDataService, type RunningDataService } from '../../processor/data-service/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { setUpDemoMerchant, startDemoStore, type RunningDemoStore } from '../demo-store/index.js'
import { startGateway, type RunningGateway } from '../../processor/gateway/index.js'
import { createLogger, type Logger } from '../../platform/observability/index.js'
import type { RunningSubmitter } from '../../processor/submitter/index.js'
import { startWidget, type RunningWidget } from '../../processor/widget/index.js'
import { startTestCa, type TestCa } from './test-ca.js'
import { launchChromium } from './browser-helpers.js'
import { testDatabase } from '../test-database/index.js'
import { startTestExplorer, type TestExplorer } from './test-explorer.js'
import { startLocalChain, type LocalChain } from './local-chain.js'
import { startTestSubmitter } from './test-submitter.js'

export interface PurchaseWorld {
  chain: LocalChain
  db: Database
  explorer: TestExplorer
  gateway: RunningGateway
  widget: RunningWidget
  dataService: RunningDataService
  ca: TestCa
  checkout: RunningCheckout
  store: RunningDemoStore
  merchantDir: string
  browser: Browser
  /** What the processor pieces logged at warn and above. */
  warnings: string[]
  stop(): Promise<void>
}

export interface PurchaseWorldOptions {
  /** Seconds per block; default automine. */
  blockTime?: number
  confirmationBlocks?: number
  /** How often the explorer, the checkout and the widget poll the node; default 50 (npm start: 200). */
  pollIntervalMs?: number
}

export async function startPurchaseWorld(opts: PurchaseWorldOptions = {}): Promise<PurchaseWorld> {
  const stops: (() => Promise<unknown> | void)[] = []
  const stopAll = async () => {
    while (stops.length > 0) await stops.pop()!()
  }
  const warnings: string[] = []
  const log: Logger = createLogger('warn', {}, (line) => warnings.push(line) > 0)
  try {
    const chain = await startLocalChain({ blockTime: opts.blockTime })
    stops.push(chain.stop)
    const confirmations = String(opts.confirmationBlocks ?? 0)
    const chainEnv = {
      RPC_URL: chain.rpcUrl,
      SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
      START_BLOCK: String(chain.deployment.startBlock),
      POLL_INTERVAL_MS: String(opts.pollIntervalMs ?? 50),
      CONFIRMATION_BLOCKS: confirmations,
      LOG_LEVEL: 'warn',
    }
    const db = await openDatabase(await testDatabase(), log)
    stops.push(db.close)
    const explorer = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: confirmations, POLL_INTERVAL_MS: chainEnv.POLL_INTERVAL_MS })
    stops.push(explorer.stop)

    const processorEnv = { ...chainEnv, EXPLORER_URL: explorer.url }
    const gateway = await startGateway(gatewayOptionsFromEnv({ ...processorEnv, GATEWAY_PORT: '0', GATEWAY_RELAYER_REFRESH_MS: '200' }), { db, log })
    stops.push(gateway.stop)
    const submitter: RunningSubmitter = await startTestSubmitter(chain, db, { SUBMITTER_IDLE_POLL_MS: '50' })
    stops.push(submitter.stop)
    const gatewayPort = new URL(gateway.url).port

    // A reload issues a fresh payment link at once here; the interval that guards a shown link has its own
    // test (test/widget/payment-link.test.ts).
    const widget = await startWidget(widgetOptionsFromEnv({ ...processorEnv, WIDGET_PORT: '0', GATEWAY_PORT: gatewayPort, WIDGET_LINK_INTERVAL_SECONDS: '0' }), { db, log })
    stops.push(widget.stop)
    const publicEnv = { ...processorEnv, GATEWAY_PORT: gatewayPort, CHECKOUT_WIDGET_URL: widget.publicUrl }
    const dataService = await startDataService(dataServiceOptionsFromEnv({ ...publicEnv, DATA_SERVICE_PORT: '0' }), { log })
    stops.push(dataService.stop)

    const ca = await startTestCa(db)
    stops.push(ca.stop)
    const webhookDir = mkdtempSync(join(tmpdir(), 'webhooks-test-'))
    stops.push(() => rmSync(webhookDir, { recursive: true, force: true }))
    const webhookOptions = webhookOptionsFromEnv({ WEBHOOK_DATA_DIR: webhookDir, WEBHOOK_POLL_MS: '100', WEBHOOK_BACKOFF_BASE_MS: '200' })
    const webhooks: WebhookDelivery = await startWebhookDelivery(webhookOptions, { db, log })
    stops.push(webhooks.stop)
    const checkout = await startCheckout(
      checkoutOptionsFromEnv({ ...publicEnv, CHECKOUT_PORT: '0', CA_DATA_DIR: ca.dataDir, CHECKOUT_EXPIRY_SWEEP_MS: '100', CHECKOUT_STANDBY_POLL_MS: '100' }),
      { db, log },
    )
    stops.push(checkout.stop)

    const merchantDir = mkdtempSync(join(tmpdir(), 'demo-merchant-'))
    stops.push(() => rmSync(merchantDir, { recursive: true, force: true }))
    const store = await startDemoStore(
      demoStoreOptionsFromEnv({ STORE_PORT: '0', CHECKOUT_URL: checkout.url, DEMO_MERCHANT_DIR: merchantDir, DATA_SERVICE_URL: dataService.url, RPC_URL: chain.rpcUrl }),
      { log },
    )
    stops.push(store.stop)
    await setUpDemoMerchant({ db, sealer: await openSecretBox(webhookOptions), ca: ca.client, dir: merchantDir, webhookUrl: `${store.url}/webhooks` })

    const browser = await launchChromium()
    stops.push(() => browser.close())
    return { chain, db, explorer, gateway, widget, dataService, ca, checkout, store, merchantDir, browser, warnings, stop: stopAll }
  } catch (error) {
    await stopAll()
    throw error
  }
}

/** A request to the merchant API as the demo merchant (mutual TLS with its files). */
export async function asDemoMerchant(world: PurchaseWorld, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const dispatcher = new Agent({ connect: await readClientCredentials(world.merchantDir) })
  try {
    const response = await tlsFetch(world.checkout.url + path, {
      method,
      dispatcher,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })
    return { status: response.status, body: await response.json() }
  } finally {
    await dispatcher.close()
  }
}

/** An order placed with a plain form post, without a browser: the store answers with the payment page's address. */
export async function placeOrder(world: PurchaseWorld, product: string): Promise<{ orderId: string; chargeId: string; widgetUrl: string }> {
  const response = await fetch(`${world.store.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ product }),
    redirect: 'manual',
  })
  assert.equal(response.status, 303)
  const widgetUrl = response.headers.get('location')!
  const order = world.store.orders().find((o) => o.widgetUrl === widgetUrl)!
  return { orderId: order.id, chargeId: order.chargeId, widgetUrl }
}
