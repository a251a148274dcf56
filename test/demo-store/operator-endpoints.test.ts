/**
 * The demo store's operator endpoints on the real server, its configuration read from a real data
 * service on anvil: `/ready` is a 503 problem naming DEMO_MERCHANT_DIR until the demo merchant's
 * credentials and webhook secret are there, then ready without a restart; `/metrics` is Prometheus text
 * with the orders in memory and the answers by status. And the store's forms refuse a POST another site's
 * page sends (Origin or Sec-Fetch-Site say so); the webhook receiver, called by no browser, does not look.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { dataServiceOptionsFromEnv } from '../../src/config/data-service-options.js'
import { demoStoreOptionsFromEnv } from '../../src/config/demo-store-options.js'
import { merchantFiles, writeWebhookSecrets } from '../../src/devnet/demo-store/merchant-files.js'
import { startDemoStore, type RunningDemoStore } from '../../src/devnet/demo-store/index.js'
import { startDataService, type RunningDataService } from '../../src/processor/data-service/index.js'
import { generateWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { getJson, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'

const log = createLogger('silent')
let chain: LocalChain
let dataService: RunningDataService
let store: RunningDemoStore
const merchantDir = mkdtempSync(join(tmpdir(), 'demo-store-test-'))

before(async () => {
  chain = await startLocalChain()
  const chainEnv = { RPC_URL: chain.rpcUrl, SETTLEMENT_CONTRACT: chain.deployment.settlementContract, START_BLOCK: String(chain.deployment.startBlock), LOG_LEVEL: 'silent' }
  dataService = await startDataService(dataServiceOptionsFromEnv({ ...chainEnv, DATA_SERVICE_PORT: '0' }), { log })
  store = await startDemoStore(demoStoreOptionsFromEnv({ STORE_PORT: '0', DEMO_MERCHANT_DIR: merchantDir, DATA_SERVICE_URL: dataService.url, RPC_URL: chain.rpcUrl }), { log })
})
after(async () => {
  await store?.stop()
  await dataService?.stop()
  await chain?.stop()
  rmSync(merchantDir, { recursive: true, force: true })
})

test('/ready: a 503 problem naming DEMO_MERCHANT_DIR until the merchant files are written, then ready', async () => {
  const missing = await getJson(store.url, '/ready')
  assert.equal(missing.status, 503)
  assert.equal(missing.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.match(missing.body.detail, /^DEMO_MERCHANT_DIR .*: cannot read [a-z.]+\.pem \(ENOENT\); npm start sets the demo merchant up there$/)
  assert.deepEqual((await getJson(store.url, '/health')).body, { status: 'ok', orders: 0 }, '/health is unchanged')

  for (const file of [merchantFiles.key, merchantFiles.certificate, merchantFiles.caCertificate]) writeFileSync(join(merchantDir, file), '-----BEGIN PLACEHOLDER-----\n')
  assert.match((await getJson(store.url, '/ready')).body.detail, /cannot read webhook-secret/)
  await writeWebhookSecrets(merchantDir, [generateWebhookSecret()])
  const ready = await getJson(store.url, '/ready')
  assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }])
})

test('/metrics is Prometheus text with the orders in memory and the answers by status', async () => {
  const response = await fetch(`${store.url}/metrics`)
  const samples = checkPrometheusText({ status: response.status, headers: response.headers, body: await response.text() }, 'demo_store')
  assert.equal(samples.get('demo_store_orders'), 0)
  assert.ok(samples.get('demo_store_http_requests_total{method="GET",status="503"}')! >= 1)
  assert.ok(samples.get('demo_store_http_requests_total{method="GET",status="200"}')! >= 1)
})

test("the store's forms refuse a POST from another site's page", async () => {
  const post = async (path: string, headers: Record<string, string>) =>
    (await fetch(`${store.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: 'product=nothing' })).status
  const order = '/orders/o_0000000000/demo-wallet'
  assert.equal(await post('/orders', { origin: 'http://evil.example' }), 403)
  assert.equal(await post('/orders', { origin: 'null' }), 403)
  assert.equal(await post('/orders', { 'sec-fetch-site': 'cross-site' }), 403)
  assert.equal(await post(order, { origin: 'http://evil.example' }), 403)
  // Its own pages and clients with no browser page behind them get past the check (to "unknown product", "no such order").
  assert.equal(await post('/orders', { origin: new URL(store.url).origin, 'sec-fetch-site': 'same-origin' }), 400)
  assert.equal(await post('/orders', {}), 400)
  assert.equal(await post(order, { origin: new URL(store.url).origin }), 404)
  assert.equal(await post('/webhooks', { origin: 'http://evil.example' }), 401)
})

test("the store's HTTP edge: oversized form and webhook bodies, unknown paths, other methods, HEAD", async () => {
  const form = (body: string) => fetch(`${store.url}/orders`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
  // Over the 4 KiB form cap the form reads as empty: the page asks for a product rather than failing.
  const oversized = await form(`product=${'x'.repeat(5 * 1024)}`)
  assert.equal(oversized.status, 400)
  assert.match(await oversized.text(), /Unknown product/)
  const webhook = await fetch(`${store.url}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(257 * 1024) })
  assert.deepEqual([webhook.status, webhook.headers.get('connection')], [413, 'close'])
  const missing = await fetch(`${store.url}/nothing/here`)
  assert.equal(missing.status, 404)
  assert.match(await missing.text(), /There is no such page in the Demo Store/)
  const wrongMethod = await fetch(`${store.url}/orders`, { method: 'PUT' })
  assert.deepEqual([wrongMethod.status, wrongMethod.headers.get('allow')], [405, 'POST'])
  const head = await fetch(`${store.url}/health`, { method: 'HEAD' })
  assert.deepEqual([head.status, head.headers.get('content-type'), await head.text()], [200, 'application/json; charset=utf-8', ''])
  assert.equal((await fetch(`${store.url}/products/nothing/buy-again`)).status, 404)
})
