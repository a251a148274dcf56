/**
 * Each test file gets its own embedded PostgreSQL data directory. It is created directly under the
 * system temp dir (not inside a mkdtemp folder) because the server runs as the `postgres` user, which
 * must be able to reach it.
 */
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const testDatabaseDir = () => join(tmpdir(), `processor-pg-${randomBytes(6).toString('hex')}`)
