// @ts-check
/**
 * A node:test reporter beside `spec`: at the end of the run, the ten test files that took longest, so
 * that the suite's time budget has names on it. Each file is a top-level test named by its path: `node --test`
 * reports a file that way, and `npm test` runs each file as a suite so named (scripts/test-group.ts).
 * JavaScript, so that it also serves `node --test`.
 */
import { relative } from 'node:path'

const SHOWN = 10
const TEST_FILE = /\.test\.[jt]s$/

/** @param {AsyncIterable<{ type: string, data?: { name?: string, file?: string, nesting?: number, message?: string, details?: { duration_ms?: number } } }>} source */
export default async function* slowestFiles(source) {
  /** @type {Map<string, number>} */
  const durations = new Map()
  for await (const event of source) {
    const { name, nesting, message, details } = event.data ?? {}
    if (event.type === 'test:complete' && nesting === 0 && name !== undefined && TEST_FILE.test(name) && details?.duration_ms !== undefined) {
      durations.set(sourcePath(relative(process.cwd(), name)), details.duration_ms)
    }
    // After the summary's counts, not at the end of the stream: --test-force-exit ends the process first.
    if (event.type === 'test:diagnostic' && nesting === 0 && /^todo \d/.test(message ?? '')) yield report(durations)
  }
}

/**
 * The test file as the developer knows it: the runner runs its JavaScript copy in `.test-build/`.
 * @param {string} path
 */
const sourcePath = (path) => path.replace(/^\.test-build\/run-\d+\//, '').replace(/\.js$/, '.ts')

/**
 * One chunk, written before the process is made to exit.
 * @param {Map<string, number>} durations
 */
function report(durations) {
  const slowest = [...durations].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)
  const lines = slowest.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`)
  return `\nslowest test files (of ${durations.size}):\n${lines.join('\n')}\n`
}
