/**
 * The runner of `npm test` (scripts/run-test-files.ts) counts only what a file reports: a file that ends
 * its process midway (`process.exit(0)` in a test) reported nothing for the tests it had left, and its
 * process ended with code 0, so the run passed without them. These run the runner itself on made-up files.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { scriptArgs, tempDir } from '../../src/devnet/testing/index.js'

const PASSING = `import { test } from 'node:test'\ntest('passes', () => {})\n`
const EXITING = `import { test } from 'node:test'\ntest('first', () => {})\ntest('exits', () => process.exit(0))\ntest('never runs', () => {})\n`

/** Runs the runner on files made from `sources`, as `npm test` does; its exit code and error output. */
async function runFiles(sources: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dir = tempDir('test-runner-')
  const files = Object.entries(sources).map(([name, source]) => {
    writeFileSync(join(dir, name), source)
    return join(dir, name)
  })
  // Without the variable node:test sets in the files it runs: with it, run() refuses to run files.
  const env = { ...process.env }
  delete env.NODE_TEST_CONTEXT
  const runner = spawn(process.execPath, [...scriptArgs('scripts/run-test-files.ts'), ...files], { stdio: ['ignore', 'ignore', 'pipe'], env })
  let stderr = ''
  runner.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => runner.kill('SIGKILL'), 60_000)
  const [code] = (await once(runner, 'exit')) as [number | null]
  clearTimeout(timer)
  return { code, stderr }
}

describe('the test runner', () => {
  test('passes files whose tests all ran', async () => {
    const { code, stderr } = await runFiles({ 'one.test.mjs': PASSING, 'two.test.mjs': PASSING })
    assert.equal(code, 0, stderr)
  })

  test('fails a file that exits with code 0 before its last test, and names it', async () => {
    const { code, stderr } = await runFiles({ 'exits.test.mjs': EXITING, 'after.test.mjs': PASSING })
    assert.equal(code, 1, stderr)
    assert.match(stderr, /ended before their tests did .*exits\.test\.mjs/)
    assert.doesNotMatch(stderr, /after\.test\.mjs/)
  })
})
