/**
 * `npm run explorer`: runs the explorer alone against RPC_URL / SETTLEMENT_CONTRACT (or the local
 * devnet's deployment file). Settings are read from the environment; see docs/.
 * `npm run explorer -- snapshot <dir>`: writes a snapshot of DATA_DIR's store to <dir>, beside a running explorer.
 * `npm run explorer -- migrate <dir>`: converts DATA_DIR's layout-6 store into a current one in <dir>, beside a running explorer.
 */
import { setPriority } from 'node:os'
import { localDeploymentFromEnv } from '../src/config/index.js'
import { explorerOptionsFromEnv } from '../src/config/index.js'
import { ConfigError } from '../src/config/index.js'
import { startExplorer } from '../src/explorer/index.js'
import { writeSnapshot } from '../src/explorer/snapshot/index.js'
import { migrateStore } from '../src/explorer/migrate/index.js'
import { createLogger } from '../src/platform/observability/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'

if (process.argv.includes('--help')) {
  console.log(`npm run explorer — index settlements and serve the explorer API

Environment: CHAIN_ID (31337), RPC_URL (one node, or several comma-separated, the first preferred), RPC_STALL_SECONDS (30),
SETTLEMENT_CONTRACT, START_BLOCK, CONFIRMATION_BLOCKS (0),
EXPLORER_HOST (127.0.0.1), EXPLORER_PORT (4001), DATA_DIR, QUERY_WORKERS (1), POLL_INTERVAL_MS,
READY_MAX_LAG (2), LOG_LEVEL (info), WS_MAX_CONNECTIONS, WS_MAX_CONNECTIONS_PER_IP, TRUSTED_PROXIES,
WS_MAX_SUBSCRIPTIONS, WS_SUBSCRIBE_BURST, WS_SUBSCRIBE_RATE, WS_MAX_MESSAGE_BYTES, LIVE_MAX_BUFFERED_BYTES,
LIVE_MAX_TOTAL_BUFFERED_BYTES, LIVE_REPLAY_SCAN_PER_TURN, WS_IDLE_TIMEOUT_SECONDS. On chain 31337 without
SETTLEMENT_CONTRACT the devnet's .data/deployment.json (DEPLOYMENT_FILE) is used. SNAPSHOT_FROM (a snapshot
directory or its URL) and SNAPSHOT_TOKEN: a new replica's store when DATA_DIR holds none.

npm run explorer -- snapshot <dir>: writes a compacted, consistent copy of DATA_DIR's store and its manifest
to <dir> (new or empty), beside the explorer serving from it.

npm run explorer -- migrate <dir>: converts DATA_DIR's store of layout 6 into the current layout in <dir>
(new, or a conversion stopped midway, which goes on), beside the older explorer serving from DATA_DIR;
then start this explorer with DATA_DIR=<dir>. DATA_DIR is left as it was.`)
  process.exit(0)
}

try {
  const options = explorerOptionsFromEnv(process.env, await localDeploymentFromEnv())
  if (process.argv[2] === 'snapshot') {
    const outDir = process.argv[3]
    if (!outDir) throw new ConfigError('usage: npm run explorer -- snapshot <dir>')
    // A background copy: the lowest CPU priority, taken before lmdb-js starts the thread that copies (threads
    // inherit it), so the explorer serving beside it keeps the cores it needs.
    setPriority(19)
    await writeSnapshot({ dataDir: options.dataDir, outDir, log: createLogger(options.logLevel, { service: 'snapshot' }) })
    process.exit(0)
  }
  if (process.argv[2] === 'migrate') {
    const to = process.argv[3]
    if (!to) throw new ConfigError('usage: npm run explorer -- migrate <dir>')
    await migrateStore({ from: options.dataDir, to, log: createLogger(options.logLevel, { service: 'migrate' }) })
    process.exit(0)
  }
  const explorer = await startExplorer(options)
  // As every piece: "stopping (SIGTERM)…" then "stopped", so an operator sees it went down cleanly.
  onShutdown(() => explorer.stop())
} catch (error) {
  // A setting or a data directory that does not fit stops start-up with one line naming it.
  if (!(error instanceof Error)) throw error
  console.error(`explorer: ${error instanceof ConfigError ? error.message : error.message.split('\n')[0]}`)
  process.exit(1)
}
