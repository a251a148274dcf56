/**
 * Each test file gets its own embedded PostgreSQL data directory. It is created directly under the
 * system temp dir (not inside a mkdtemp folder) because the server runs as the `postgres` user, which
 * must be able to reach it.
 *
 * Under `npm test` the directory starts as a copy of the run's freshly initialised one (TEST_PG_TEMPLATE,
 * made once by scripts/run-tests.ts): the same cluster initdb would make, for 0.1 s instead of about
 * 1.5 s. `cp -a` keeps the files' owner, the postgres user, which the server requires. Without the
 * variable (a file run on its own) the server's start runs initdb as before.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const TEST_PG_TEMPLATE = 'TEST_PG_TEMPLATE'

export function testDatabaseDir(): string {
  const dir = join(tmpdir(), `processor-pg-${randomBytes(6).toString('hex')}`)
  const template = process.env[TEST_PG_TEMPLATE]
  if (template && existsSync(join(template, 'PG_VERSION'))) execFileSync('cp', ['-a', template, dir])
  return dir
}
