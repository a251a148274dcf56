/**
 * `npm run db`: the processor's database alone — an embedded PostgreSQL in EMBEDDED_POSTGRES_DIR
 * (.data/postgres), migrated, kept across restarts, until Ctrl-C. It prints the DATABASE_URL to give every
 * processor piece started on its own (docs/running.md): without it each would try to start its own server
 * on the same directory, and all but the first would be refused.
 */
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { databaseOptionsFromEnv, logLevelSetting } from '../src/config/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { createLogger } from '../src/platform/observability/index.js'

runCli(
  {
    name: 'db',
    usage: `npm run db — an embedded PostgreSQL for the processor pieces run one by one; prints its DATABASE_URL

Environment: EMBEDDED_POSTGRES_DIR (.data/postgres; kept across restarts), LOG_LEVEL (info).`,
    options: {},
  },
  async () => {
    const log = createLogger(logLevelSetting(process.env, 'info'), { service: 'db' })
    const options = databaseOptionsFromEnv({ ...process.env, DATABASE_URL: undefined })
    const db = await openDatabase(options, log)
    console.log(`DATABASE_URL=${db.url}`)
    console.log(`(data in ${options.embeddedDir}; give this DATABASE_URL to every piece, Ctrl-C stops the server)`)
    onShutdown(() => db.close())
  },
)
