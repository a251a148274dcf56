/**
 * `npx tsx scripts/checkout.ts`: the checkout engine — the merchant API over mutual TLS on
 * https://CHECKOUT_HOST:CHECKOUT_PORT and reconciliation (active here or standing by behind another
 * replica) against RPC_URL / SETTLEMENT_CONTRACT (or the devnet's deployment file on chain 31337), the
 * explorer at EXPLORER_URL and the processor database, with this replica's webhook delivery worker.
 * Settings: see docs/.
 */
import { localDeploymentFromEnv } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { checkoutOptionsFromEnv } from '../src/config/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { webhookOptionsFromEnv } from '../src/config/index.js'
import { startCheckout } from '../src/processor/checkout/index.js'
import { startWebhookDelivery } from '../src/processor/webhooks/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { createLogger, serviceMetrics } from '../src/platform/observability/index.js'

runCli(
  {
    name: 'checkout',
    usage: `checkout — the checkout engine: merchant API over mutual TLS (https://CHECKOUT_HOST:CHECKOUT_PORT/api/v1/charges), GET /health, reconciliation

Environment: CHAIN_ID (31337), RPC_URL (one node, or several comma-separated, the first preferred), RPC_STALL_SECONDS (30),
SETTLEMENT_CONTRACT, START_BLOCK, EXPLORER_URL (http://127.0.0.1:4001),
CHECKOUT_HOST (127.0.0.1), CHECKOUT_PORT (4003), CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH (required off
chain 31337; on 31337 issued at start by the CA), CA_CERT_PATH (required off chain 31337; on 31337 the local CA in
CA_DATA_DIR, .data/ca), CA_KEY_PATH, CHECKOUT_DOMAIN, CHECKOUT_WIDGET_URL (http://127.0.0.1:WIDGET_PORT, 4004),
CHARGE_TTL_SECONDS (900), CONFIRMATION_BLOCKS (0), POLL_INTERVAL_MS, CHECKOUT_EXPIRY_SWEEP_MS (1000),
CHECKOUT_STANDBY_POLL_MS (1000), DATABASE_URL (else an embedded PostgreSQL in EMBEDDED_POSTGRES_DIR), LOG_LEVEL (info),
and the webhook delivery's WEBHOOK_SECRET_KEY and WEBHOOK_ENCRYPTION_KEY (both required off chain 31337),
WEBHOOK_* (docs/checkout.md, Webhooks).
On chain 31337 without SETTLEMENT_CONTRACT the devnet's .data/deployment.json (DEPLOYMENT_FILE) is used.`,
    options: {},
  },
  async () => {
    const options = checkoutOptionsFromEnv(process.env, await localDeploymentFromEnv())
    const webhookOptions = webhookOptionsFromEnv()
    const log = createLogger(options.logLevel, { service: 'checkout' })
    const db = await openDatabase(databaseOptionsFromEnv(), log)
    try {
      // One registry, so the replica's /metrics shows its webhook deliveries too.
      const metrics = serviceMetrics('checkout')
      const checkout = await startCheckout(options, { db, log, metrics })
      const webhooks = await startWebhookDelivery(webhookOptions, { db, log, metrics }).catch(async (error: unknown) => {
        await checkout.stop()
        throw error
      })
      onShutdown(async () => {
        await webhooks.stop()
        await checkout.stop()
        await db.close()
      })
    } catch (error) {
      await db.close()
      throw error
    }
  },
)
