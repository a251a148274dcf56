/**
 * The second half of `npm test` (run-tests.ts): runs the test files named on the command line, in that
 * order, with node:test's run(). Started by plain Node from `.test-build/` (test-build.ts), so each
 * test file's process, which takes this one's flags, loads JavaScript without loader hooks.
 * `node --test <files>` would sort the files by name.
 */
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import slowestFiles from './test-reporters/slowest-files.mjs'

const FILE_TIMEOUT_MS = 600_000
// Two cores: a third file at a time only adds contention (2026-11-27: 494 s against 402 s for the whole run).
const CONCURRENCY = 2

// Absolute paths, as `node --test` gives them: the reporters know a file's own result by its name being its path.
const stream = run({ files: process.argv.slice(2), concurrency: CONCURRENCY, timeout: FILE_TIMEOUT_MS, forceExit: true })
// As `node --test` does: any failed test (not a todo) fails the run.
stream.on('test:fail', (data: { todo?: string | boolean }) => {
  if (data.todo === undefined || data.todo === false) process.exitCode = 1
})
stream.compose(new spec()).pipe(process.stdout)
stream.compose(slowestFiles).pipe(process.stdout)
