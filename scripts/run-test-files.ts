/**
 * The second half of `npm test` (run-tests.ts): runs the test files named on the command line, in that
 * order, with node:test's run(), in a few long-lived processes that share them (test-group.ts). Started by
 * plain Node from `.test-build/` (test-build.ts), so those processes, which take this one's flags, load
 * JavaScript without loader hooks.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import { fileURLToPath } from 'node:url'
import { TEST_QUEUE, type TestQueue } from './test-group.js'
import slowestFiles from './test-reporters/slowest-files.mjs'

// A file that hangs fails by name after this; its process goes on with the next file.
const FILE_TIMEOUT_MS = 600_000
// A backstop for what a file's timeout does not cover (an `after` hook that never ends).
const PROCESS_TIMEOUT_MS = 1_800_000
// Three on two cores: the files wait on blocks, sleeps and children for part of their time, and a third
// process fills it (2026-11-27, whole runs: 2 processes 355 s, 3 295 s, 4 342 s).
const CONCURRENCY = 3

const files = process.argv.slice(2)
const copy = fileURLToPath(new URL('..', import.meta.url))
// One per runner: a runner started inside a run (the runner's own test, test/build/test-runner.test.ts)
// keeps a queue and claims of its own.
const dir = join(copy, '.test-queue', `run-${process.pid}`)
const queue: TestQueue = {
  files: files.map((path) => ({ path, name: relative(copy, path).replace(/\.js$/, '.ts') })),
  claims: join(dir, 'claims'),
  timeoutMs: FILE_TIMEOUT_MS,
}
mkdirSync(queue.claims, { recursive: true })
writeFileSync(join(dir, 'queue.json'), JSON.stringify(queue))
process.env[TEST_QUEUE] = join(dir, 'queue.json')

// node:test runs each path once, so each process has an entry file of its own.
const group = join(dirname(fileURLToPath(import.meta.url)), 'test-group.js')
const processes = Array.from({ length: Math.min(CONCURRENCY, files.length) }, (_, i) => {
  const entry = join(dir, `process-${i + 1}.js`)
  writeFileSync(entry, `import { runQueuedFiles } from ${JSON.stringify(group)}\nrunQueuedFiles()\n`)
  return entry
})

const stream = run({ files: processes, concurrency: CONCURRENCY, timeout: PROCESS_TIMEOUT_MS, forceExit: true })
// As `node --test` does: any failed test (not a todo) fails the run.
stream.on('test:fail', (data: { todo?: string | boolean }) => {
  if (data.todo === undefined || data.todo === false) process.exitCode = 1
})
// Each file is a top-level suite named by it (test-group.ts); the names of those that reported an end.
const ended = new Set<string>()
const fileEnded = (data: { name: string; nesting: number }) => {
  if (data.nesting === 0) ended.add(data.name)
}
stream.on('test:pass', fileEnded)
stream.on('test:fail', fileEnded)
stream.on('end', () => {
  const taken = new Set(readdirSync(queue.claims))
  rmSync(dir, { recursive: true, force: true })
  // A process that ended early (a crash) leaves files nobody took: name them rather than pass without them.
  const missed = queue.files.filter((_, i) => !taken.has(String(i)))
  if (missed.length > 0) console.error(`\nnot run (their process ended first): ${missed.map((file) => file.name).join(', ')}`)
  // A file that ends its process midway (`process.exit(0)` in a test, a library's exit on a signal) ends
  // with code 0 and no report of the tests it had left: taken, it never reported its own end.
  const cut = queue.files.filter((file, i) => taken.has(String(i)) && !ended.has(file.name))
  if (cut.length > 0) console.error(`\nended before their tests did (their process exited in them): ${cut.map((file) => file.name).join(', ')}`)
  if (missed.length > 0 || cut.length > 0) process.exitCode = 1
})
stream.compose(new spec()).pipe(process.stdout)
stream.compose(slowestFiles).pipe(process.stdout)
