/** The shared database layer on a real embedded PostgreSQL: migrations, LISTEN/NOTIFY, bad settings. */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { after, before, test } from 'node:test'
import { databaseOptionsFromEnv } from '../../src/config/database-options.js'
import { ConfigError } from '../../src/config/parse-env.js'
import { startEmbeddedPostgres } from '../../src/processor/db/embedded-postgres.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { testDatabaseDir } from '../../src/devnet/test-database/index.js'

const log = createLogger('silent')
let db: Database

before(async () => {
  // A server of its own: the migrations run here on a new cluster, not on the shared server's migrated copy.
  db = await openDatabase({ embeddedDir: testDatabaseDir() }, log)
})
after(() => db.close())

test('migrations create the processor tables, and running them again changes nothing', async () => {
  const tables = async () =>
    (await db.pool.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).rows.map((r) => r.table_name)
  const first = await tables()
  for (const name of ['submissions', 'submission_transactions', 'relayer_status', 'pgmigrations']) assert.ok(first.includes(name), name)
  const second = await openDatabase({ url: db.url, embeddedDir: '' }, log)
  await second.close()
  assert.deepEqual(await tables(), first)
})

test('a notification reaches every listener, only after the transaction commits', async () => {
  const seen: string[][] = [[], []]
  const listeners = await Promise.all(seen.map((into) => db.listen(['probe'], (channel, payload) => into.push(`${channel}:${payload}`))))
  await db.transaction(async (client) => {
    await client.query(`SELECT pg_notify('probe', 'one')`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.deepEqual(seen, [[], []], 'nothing is delivered before COMMIT')
  })
  await assert.rejects(
    db.transaction(async (client) => {
      await client.query(`SELECT pg_notify('probe', 'rolled back')`)
      throw new Error('abort')
    }),
  )
  await db.pool.query(`SELECT pg_notify('probe', 'two')`)
  for (let i = 0; i < 100 && seen.some((s) => s.length < 2); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.deepEqual(seen, [['probe:one', 'probe:two'], ['probe:one', 'probe:two']])
  await Promise.all(listeners.map((l) => l.close()))
})

test('an unreachable DATABASE_URL stops start-up with one line naming it, password hidden', async () => {
  const options = databaseOptionsFromEnv({ DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/app' })
  const error = await openDatabase(options, log).then(
    () => assert.fail('connected to a closed port'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof ConfigError)
  assert.match(error.message, /^DATABASE_URL: cannot connect to postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app/)
  assert.ok(!error.message.includes('secret'))
  assert.ok(!error.message.includes('\n'))
})

test('an embedded server whose port is taken fails start-up with the port named, and leaves no data directory', async () => {
  const holder = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => holder.once('listening', resolve))
  const port = (holder.address() as { port: number }).port
  const dataDir = testDatabaseDir()
  try {
    await assert.rejects(startEmbeddedPostgres({ dataDir, port }), new RegExp(`did not start in ${dataDir}: the server exited at start \\(port ${port} taken\\?\\)`))
    assert.equal(existsSync(dataDir), false)
  } finally {
    holder.close()
  }
})

test('a malformed DATABASE_URL is refused before any connection; REDIS_URL gets one notice', () => {
  assert.throws(() => databaseOptionsFromEnv({ DATABASE_URL: 'mysql://x' }), /^ConfigError: DATABASE_URL must use postgres: or postgresql:/)
  const notices: string[] = []
  databaseOptionsFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379' }, (line) => notices.push(line))
  assert.equal(notices.length, 1)
  assert.match(notices[0]!, /REDIS_URL/)
})
