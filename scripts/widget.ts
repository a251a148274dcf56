/**
 * `npm run widget`: the checkout widget alone — the payment pages on http://WIDGET_HOST:WIDGET_PORT/s/<charge id>
 * against the processor database (where the checkout engine keeps charges) and the chain's token list.
 * Settings: see docs/.
 */
import { localDeploymentFromEnv } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { widgetOptionsFromEnv } from '../src/config/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { createLogger } from '../src/platform/observability/index.js'
import { startWidget } from '../src/processor/widget/index.js'

runCli(
  {
    name: 'widget',
    usage: `npm run widget — the checkout widget: payment pages GET /s/<charge id>, the wallet's GET /s/<id>/api/session,
live status GET /s/<id>/events, GET /health

Environment: CHAIN_ID (31337), RPC_URL (one node, or several comma-separated, the first preferred), RPC_STALL_SECONDS (30),
SETTLEMENT_CONTRACT, START_BLOCK, WIDGET_HOST (127.0.0.1), WIDGET_PORT (4004),
CHECKOUT_WIDGET_URL (the payment links' base; http://127.0.0.1:WIDGET_PORT), GATEWAY_DOMAIN or GATEWAY_PORT (the
wallet gateway a session names), POLL_INTERVAL_MS, DATABASE_URL (else an embedded PostgreSQL in EMBEDDED_POSTGRES_DIR),
LOG_LEVEL (info). On chain 31337 without SETTLEMENT_CONTRACT the devnet's .data/deployment.json (DEPLOYMENT_FILE) is used.`,
    options: {},
  },
  async () => {
    const options = widgetOptionsFromEnv(process.env, await localDeploymentFromEnv())
    const log = createLogger(options.logLevel, { service: 'widget' })
    const db = await openDatabase(databaseOptionsFromEnv(), log)
    const widget = await startWidget(options, { db, log }).catch(async (error: unknown) => {
      await db.close()
      throw error
    })
    console.log(`widget: ${widget.publicUrl}/s/<charge id>`)
    onShutdown(async () => {
      await widget.stop()
      await db.close()
    })
  },
)
