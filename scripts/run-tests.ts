/**
 * Runs every `*.test.ts` under `src/` and `test/` with node:test, from the JavaScript copy test-build.ts
 * makes of the repository (the transform tsx makes, done once rather than in every process).
 * Node 20's `--test` neither expands globs nor keeps the files' order, so the files are listed here and
 * handed to run-test-files.ts, which runs them in a few long-lived processes that take the next file from a
 * shared queue (test-group.ts). Extra arguments are passed through (e.g. `npm test -- test/explorer`) and narrow the set.
 * Each file gets at most 10 minutes: a file that hangs fails by name instead of holding the whole run until
 * CI's own limit. A process whose files have all finished ends (`forceExit`), so a socket a library keeps
 * open for reuse cannot hold the run either. The longest files start first (test-order.ts). The run ends
 * with the ten slowest files (test-reporters/slowest-files.mjs).
 * One PostgreSQL data directory is initialised for the run (without fsync), and copied for each test server.
 * The type check runs beside the tests (startTypeCheck).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { appendFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { setPriority, tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildTests, builtPath, removeAbandoned, removeTestBuild } from './test-build.js'
import { orderTests } from './test-order.js'
import { initialiseEmbeddedPostgres } from '../src/processor/db/index.js'
import { TEST_PG_TEMPLATE } from '../src/devnet/test-database/index.js'

function findTests(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...findTests(path))
    else if (name.endsWith('.test.ts')) found.push(path)
  }
  return found
}

const root = fileURLToPath(new URL('..', import.meta.url))
const filters = process.argv.slice(2)
const found = ['src', 'test']
  .flatMap((dir) => findTests(join(root, dir)))
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
const files = orderTests(found)

if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

const typeCheck = startTypeCheck()

// One initdb for the run, while the copy is built; each test server starts as a copy of it (src/devnet/test-database/test-database.ts).
const PG_TEMPLATE_PREFIX = 'processor-pg-template-'
removeAbandoned(tmpdir(), PG_TEMPLATE_PREFIX)
const pgTemplate = join(tmpdir(), `${PG_TEMPLATE_PREFIX}${process.pid}`)
const [out, template] = await Promise.all([
  buildTests(root),
  // Without a template each test server runs initdb itself, as a file run alone does: slower, not wrong.
  initialiseEmbeddedPostgres(pgTemplate).then(
    () => {
      // The tests' servers never see a power cut (their crash tests kill our processes, or stop the server):
      // no fsync. The database-heavy directories (checkout, submitter, gateway, ca) measured 209-210 -> 185-199
      // CPU-s and 111-112 -> 98-104 s with it.
      appendFileSync(join(pgTemplate, 'postgresql.conf'), '\nfsync = off\nfull_page_writes = off\n')
      return { [TEST_PG_TEMPLATE]: pgTemplate }
    },
    (error: Error) => void console.error(`npm test: no PostgreSQL template (${error.message}); each test server runs initdb`),
  ),
])
// Plain Node on the JavaScript copy; source maps on, as tsx has them: stack traces and failure
// locations name the TypeScript lines.
const tests = spawn(process.execPath, ['--enable-source-maps', builtPath(out, 'scripts/run-test-files.ts'), ...files.map((file) => builtPath(out, file))], {
  stdio: 'inherit',
  env: { ...process.env, ...template },
})
const [code] = (await once(tests, 'exit')) as [number | null]
removeTestBuild(out)
rmSync(pgTemplate, { recursive: true, force: true })
const typed = await typeCheck
process.exit(code !== 0 ? (code ?? 1) : typed ? 0 : 1)

/**
 * `tsc --noEmit` beside the tests, at the lowest priority: the test processes leave a core idle now and
 * then (waiting on chains, timers and sockets), and the type check (~10 CPU-s) fits in those gaps instead
 * of holding the start of the run. Its errors print after the tests' report; they fail the run.
 */
async function startTypeCheck(): Promise<boolean> {
  const tsc = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { stdio: ['ignore', 'pipe', 'pipe'] })
  if (tsc.pid !== undefined) setPriority(tsc.pid, 19)
  let output = ''
  tsc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  tsc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const [code] = (await once(tsc, 'exit')) as [number | null]
  if (code !== 0) console.error(`npm test: the type check failed (tsc --noEmit):\n${output}`)
  return code === 0
}
