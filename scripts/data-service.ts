/**
 * `npm run data-service`: the public configuration directory alone, against RPC_URL /
 * SETTLEMENT_CONTRACT (or the local devnet's deployment file on chain 31337). Settings: see docs/.
 */
import { localDeploymentFromEnv } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { dataServiceOptionsFromEnv } from '../src/config/index.js'
import { startDataService } from '../src/processor/data-service/index.js'

runCli(
  {
    name: 'data-service',
    usage: `npm run data-service — serve the processor's configuration (GET /config, /tokens, /health) read from the chain

Environment: CHAIN_ID (31337), RPC_URL (one node, or several comma-separated, the first preferred), RPC_STALL_SECONDS (30),
SETTLEMENT_CONTRACT, START_BLOCK, DATA_SERVICE_HOST (127.0.0.1),
DATA_SERVICE_PORT (4002), POLL_INTERVAL_MS, LOG_LEVEL (info); the announced URLs: GATEWAY_DOMAIN or
GATEWAY_PORT (4000), EXPLORER_URL or EXPLORER_PORT (4001), CHECKOUT_WIDGET_URL or WIDGET_PORT (4004).
On chain 31337 without SETTLEMENT_CONTRACT the devnet's .data/deployment.json (DEPLOYMENT_FILE) is used.`,
    options: {},
  },
  async () => {
    const options = dataServiceOptionsFromEnv(process.env, await localDeploymentFromEnv())
    const service = await startDataService(options)
    onShutdown(service.stop)
  },
)
