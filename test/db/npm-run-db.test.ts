/**
 * Issue 43 items 7 and 9: `npm run db` starts the embedded PostgreSQL and prints the DATABASE_URL to give
 * the pieces run one by one; while it runs, anything else that would start its own embedded server on the
 * same directory (a second `npm run db`, `npm run admin -- webhook-secret` without DATABASE_URL, as while
 * `npm start` runs) is refused with a message that says a server is already running there and names
 * the DATABASE_URL to use, not "did not start … (port taken?)". Real processes, real PostgreSQL.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import pg from 'pg'
import { scriptArgs } from '../../src/devnet/testing/index.js'

const dir = mkdtempSync(join(tmpdir(), 'npm-run-db-'))
// The embedded PostgreSQL runs as the postgres user, who must be able to reach the data directory.
chmodSync(dir, 0o755)
const env = { ...process.env, EMBEDDED_POSTGRES_DIR: join(dir, 'postgres'), DATABASE_URL: '', LOG_LEVEL: 'warn' }
let server: ChildProcess | undefined

after(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGINT')
    await once(server, 'exit')
  }
  rmSync(dir, { recursive: true, force: true })
})

function run(script: string, args: string[] = []): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [...scriptArgs(script), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk))
  return { child, output: () => output }
}

async function finished(script: string, args: string[] = []): Promise<{ code: number | null; output: string }> {
  const { child, output } = run(script, args)
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
  return { code, output: output() }
}

test('npm run db prints a DATABASE_URL that works; a second server on its directory is refused naming it', { timeout: 180_000 }, async () => {
  const first = run('scripts/db.ts')
  server = first.child
  const deadline = Date.now() + 60_000
  while (!/^DATABASE_URL=(\S+)$/m.test(first.output())) {
    if (first.child.exitCode !== null || Date.now() > deadline) assert.fail(`npm run db did not print its DATABASE_URL:\n${first.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const url = /^DATABASE_URL=(\S+)$/m.exec(first.output())![1]!
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'charges'`)
  await client.end()
  assert.equal(rows[0].n, 1, 'migrated')

  for (const [script, args] of [['scripts/db.ts', []], ['scripts/admin.ts', ['webhook-secret', 'm_0']]] as const) {
    const second = await finished(script, [...args])
    assert.notEqual(second.code, 0)
    assert.match(second.output, /an embedded PostgreSQL is already running on \S+postgres \(pid \d+/, second.output)
    assert.ok(second.output.includes(`set DATABASE_URL=${url}`), second.output)
    assert.doesNotMatch(second.output, /port taken/)
  }
  assert.equal(first.child.exitCode, null, 'the first server still runs')
})
