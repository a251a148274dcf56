/**
 * Runs every `*.test.ts` under `src/` and `test/` with node:test through tsx.
 * Node 20's `--test` does not expand globs, so the files are listed here.
 * Extra arguments are passed through (e.g. `npm test -- test/explorer`) and narrow the set.
 * Each file gets at most FILE_TIMEOUT_MS: a file that hangs fails by name instead of holding the whole
 * run until CI's own limit. A file whose tests and after() hooks have all finished ends its process
 * (`--test-force-exit`), so a socket a library keeps open for reuse cannot hold the run either. The run
 * ends with the ten slowest files (test-reporters/slowest-files.mjs).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

function findTests(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...findTests(path))
    else if (name.endsWith('.test.ts')) found.push(path)
  }
  return found
}

const FILE_TIMEOUT_MS = 600_000
const CONCURRENCY = 2
const SLOWEST_FILES = fileURLToPath(new URL('./test-reporters/slowest-files.mjs', import.meta.url))

const filters = process.argv.slice(2)
const files = ['src', 'test']
  .flatMap(findTests)
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort()

if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

const result = spawnSync(
  process.execPath,
  [
    ...['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, `--test-timeout=${FILE_TIMEOUT_MS}`, '--test-force-exit'],
    ...['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${SLOWEST_FILES}`, '--test-reporter-destination=stdout'],
    ...files,
  ],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
