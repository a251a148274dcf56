/**
 * `npm run store`: the demo store alone on http://STORE_HOST:STORE_PORT, buying through the checkout
 * engine's merchant API (CHECKOUT_URL) with the demo merchant in DEMO_MERCHANT_DIR, which `npm start`
 * sets up. Settings: see docs/.
 */
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { demoStoreOptionsFromEnv } from '../src/config/index.js'
import { startDemoStore } from '../src/devnet/demo-store/index.js'
import { createLogger } from '../src/platform/observability/index.js'

runCli(
  {
    name: 'store',
    usage: `npm run store — the demo store: products on http://STORE_HOST:STORE_PORT/, orders, the webhook receiver POST /webhooks

Environment: CHAIN_ID (31337), STORE_HOST (127.0.0.1), STORE_PORT (3000), CHECKOUT_URL (https://127.0.0.1:4003),
DEMO_MERCHANT_DIR (.data/demo-merchant: client.key.pem, client.crt.pem, ca.crt.pem, webhook-secret; npm start writes
them), DATA_SERVICE_URL (http://127.0.0.1:4002), STORE_CURRENCY (USDC), STORE_BENEFICIARY (required off chain 31337;
on 31337 the devnet's first recipient), RPC_URL (http://127.0.0.1:8545; the demo wallet's top-ups, chain 31337 only),
LOG_LEVEL (info).`,
    options: {},
  },
  async () => {
    const options = demoStoreOptionsFromEnv()
    const log = createLogger(options.logLevel, { service: 'demo-store' })
    const store = await startDemoStore(options, { log })
    console.log(`open ${store.url}`)
    onShutdown(() => store.stop())
  },
)
