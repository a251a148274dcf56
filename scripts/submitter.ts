/**
 * `npm run submitter`: a broadcast submitter alone (active, or standby behind another holding the same
 * relayer's lock). `npm run gateway` runs one beside the gateway; this runs extra standbys.
 */
import { localDeploymentFromEnv } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { logLevelSetting } from '../src/config/index.js'
import { submitterSettingsFromEnv } from '../src/config/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { createLogger } from '../src/platform/observability/index.js'
import { startSubmitter } from '../src/processor/submitter/index.js'

runCli(
  {
    name: 'submitter',
    usage: `usage: npm run submitter

Runs a broadcast submitter: takes queued payments from PostgreSQL, validates them, and submits them with
the relayer key. One submitter per relayer is active (a PostgreSQL advisory lock); others stand by.

Environment: DATABASE_URL (default: an embedded PostgreSQL in .data/postgres), CHAIN_ID (31337), RPC_URL
(one node, or several comma-separated, the first preferred; a transaction goes to every node that is fine),
RPC_STALL_SECONDS (30), SETTLEMENT_CONTRACT, RELAYER_PRIVATE_KEY (on chain 31337: the devnet's relayer), RELAYER_MIN_BALANCE
(wei; default the cost of 10 payments), SUBMITTER_STUCK_TIMEOUT_MS (30000), SUBMITTER_BATCH (64),
SUBMITTER_POLL_MS (20), SUBMITTER_IDLE_POLL_MS (1000), SUBMITTER_STANDBY_POLL_MS (1000),
SUBMITTER_BALANCE_CHECK_MS (1000), SUBMITTER_DEFER_MS (100), LOG_LEVEL (info).`,
    options: {},
  },
  async () => {
    const settings = submitterSettingsFromEnv(process.env, await localDeploymentFromEnv())
    const log = createLogger(logLevelSetting(process.env), { service: 'submitter' })
    const db = await openDatabase(databaseOptionsFromEnv(), log)
    const submitter = await startSubmitter(settings, { db, log })
    onShutdown(async () => {
      await submitter.stop()
      await db.close()
    })
  },
)
