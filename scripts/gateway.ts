/**
 * `npm run gateway`: the wallet gateway and a broadcast submitter (active, or standby behind another
 * process holding the relayer's lock) against RPC_URL / SETTLEMENT_CONTRACT (or the local devnet's
 * deployment file on chain 31337) and the processor database (DATABASE_URL, or the embedded one).
 * `SUBMITTER=off` runs the gateway alone. Settings: see docs/.
 */
import { localDeploymentFromEnv } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { gatewayOptionsFromEnv } from '../src/config/index.js'
import { oneOfSetting } from '../src/config/index.js'
import { submitterSettingsFromEnv } from '../src/config/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { startGateway } from '../src/processor/gateway/index.js'
import { createLogger } from '../src/platform/observability/index.js'
import { startSubmitter } from '../src/processor/submitter/index.js'

runCli(
  {
    name: 'gateway',
    usage: `npm run gateway — the wallet gateway: signed wallet messages over WebSocket (ws://GATEWAY_HOST:GATEWAY_PORT/ws), GET /health

Environment: CHAIN_ID (31337), RPC_URL (one node, or several comma-separated, the first preferred), RPC_STALL_SECONDS (30),
SETTLEMENT_CONTRACT, START_BLOCK, EXPLORER_URL (http://127.0.0.1:4001),
GATEWAY_HOST (127.0.0.1), GATEWAY_PORT (4000), DATABASE_URL (else an embedded PostgreSQL in EMBEDDED_POSTGRES_DIR),
GATEWAY_MAX_MESSAGE_BYTES (65536), GATEWAY_MESSAGES_PER_SECOND (20), GATEWAY_MESSAGE_BURST (40),
GATEWAY_IP_MESSAGES_PER_SECOND (200), GATEWAY_IP_MESSAGE_BURST (400), GATEWAY_MAX_CONNECTIONS (20000),
GATEWAY_MAX_CONNECTIONS_PER_IP (256), TRUSTED_PROXIES (none), GATEWAY_ABUSE_THRESHOLD (100), GATEWAY_FIRST_MESSAGE_SECONDS (30),
GATEWAY_IDLE_SECONDS (300), GATEWAY_MAX_SEPARATORS (32), GATEWAY_RELAYER_REFRESH_MS (5000), POLL_INTERVAL_MS, LOG_LEVEL (info).
SUBMITTER (on; off = no submitter in this process) and the submitter's settings (npm run submitter -- --help).
On chain 31337 without SETTLEMENT_CONTRACT the devnet's .data/deployment.json (DEPLOYMENT_FILE) is used.`,
    options: {},
  },
  async () => {
    const deployment = await localDeploymentFromEnv()
    const options = gatewayOptionsFromEnv(process.env, deployment)
    const withSubmitter = oneOfSetting(process.env, 'SUBMITTER', ['on', 'off'] as const, 'on') === 'on'
    const submitterSettings = withSubmitter ? submitterSettingsFromEnv(process.env, deployment) : undefined
    const log = createLogger(options.logLevel, { service: 'gateway' })
    const db = await openDatabase(databaseOptionsFromEnv(), log)
    const gateway = await startGateway(options, { db, log }).catch(async (error: unknown) => {
      await db.close()
      throw error
    })
    const submitter = submitterSettings && (await startSubmitter(submitterSettings, { db, log }))
    onShutdown(async () => {
      await submitter?.stop()
      await gateway.stop()
      await db.close()
    })
  },
)
