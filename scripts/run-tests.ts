/**
 * Runs every `*.test.ts` under `src/` and `test/` with node:test through tsx.
 * Node 20's `--test` neither expands globs nor keeps the files' order, so the files are listed here and
 * handed to node:test's run(), which does.
 * Extra arguments are passed through (e.g. `npm test -- test/explorer`) and narrow the set.
 * Each file gets at most FILE_TIMEOUT_MS: a file that hangs fails by name instead of holding the whole
 * run until CI's own limit. A file whose tests and after() hooks have all finished ends its process
 * (`forceExit`), so a socket a library keeps open for reuse cannot hold the run either. The longest
 * files start first (test-order.ts). The run ends with the ten slowest files (test-reporters/slowest-files.mjs).
 */
import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import slowestFiles from './test-reporters/slowest-files.mjs'
import { orderTests } from './test-order.js'

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

const filters = process.argv.slice(2)
const found = ['src', 'test']
  .flatMap(findTests)
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
const files = orderTests(found)

if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

// run() rather than `node --test <files>`, which sorts the files by name. Each file runs in a child
// process with this process's flags, so through tsx as this runner does. Absolute paths, as `node --test`
// gives them: the reporters know a file's own result by its name being its path.
const stream = run({ files: files.map((file) => resolve(file)), concurrency: CONCURRENCY, timeout: FILE_TIMEOUT_MS, forceExit: true })
// As `node --test` does: any failed test (not a todo) fails the run.
stream.on('test:fail', (data: { todo?: string | boolean }) => {
  if (data.todo === undefined || data.todo === false) process.exitCode = 1
})
stream.compose(new spec()).pipe(process.stdout)
stream.compose(slowestFiles).pipe(process.stdout)
