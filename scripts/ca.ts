/**
 * `npm run ca`: the certificate authority alone — its admin API on 127.0.0.1:CA_PORT and the processor
 * database (DATABASE_URL, or the embedded one). Settings: see docs/.
 */
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { caOptionsFromEnv } from '../src/config/index.js'
import { databaseOptionsFromEnv } from '../src/config/index.js'
import { startCa } from '../src/processor/ca/index.js'
import { openDatabase } from '../src/processor/db/index.js'
import { createLogger } from '../src/platform/observability/index.js'

runCli(
  {
    name: 'ca',
    usage: `npm run ca — the certificate authority: merchants, client certificates, revocation and the CRL on http://CA_HOST:CA_PORT

Environment: CHAIN_ID (31337), CA_HOST (127.0.0.1; loopback only), CA_PORT (4005), CA_CERT_PATH and CA_KEY_PATH
(required off chain 31337; on 31337 a local CA is created in CA_DATA_DIR, .data/ca), CA_ADMIN_TOKEN (required
off chain 31337; on 31337 a random one in CA_DATA_DIR/admin-token), CA_CRL_VALIDITY_HOURS (168),
DATABASE_URL (else an embedded PostgreSQL in EMBEDDED_POSTGRES_DIR), LOG_LEVEL (info).`,
    options: {},
  },
  async () => {
    const options = caOptionsFromEnv()
    const log = createLogger(options.logLevel, { service: 'ca' })
    const db = await openDatabase(databaseOptionsFromEnv(), log)
    const ca = await startCa(options, { db, log }).catch(async (error: unknown) => {
      await db.close()
      throw error
    })
    if (ca.adminTokenFile) console.log(`ca: ${ca.url}; admin token in ${ca.adminTokenFile}`)
    onShutdown(async () => {
      await ca.stop()
      await db.close()
    })
  },
)
