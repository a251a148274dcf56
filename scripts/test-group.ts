/**
 * One of the processes `npm test` runs its test files in (run-test-files.ts starts three), from the
 * JavaScript copy of test-build.ts.
 *
 * A process per test file paid, for each of some 120 files, Node's start, the loading of the file's
 * modules and the warming of the same code (undici, viem, pg, the explorer) by the JIT from cold. In a few
 * long-lived processes that cost is paid a few times: on 2026-11-27, with two, `npm test` took 637 CPU-s and
 * 370 s in the runner, against 711-792 CPU-s and 385-423 s with a process per file, the same 873 tests
 * passing. It also lets the files of a process share a PostgreSQL server and a devnet deployment
 * (src/devnet/test-database/test-database.ts, local-chain.ts).
 *
 * The processes share one queue, the files in the runner's order: each takes the next file nobody has taken
 * (an exclusive create of a claim file, so no two take the same) and runs it as a suite named by its path,
 * with its own timeout. The file's top-level hooks and tests land in that suite: node:test places what a
 * module registers by the async context it is imported in. The next file is taken and registered when the
 * current one's tests have ended, from the first of its `after` hooks: registered any later, node:test
 * would find no test left and end the process (the runner's forceExit).
 */
import { AsyncResource } from 'node:async_hooks'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe } from 'node:test'
import { pathToFileURL } from 'node:url'

/** The queue run-test-files.ts writes: the files' built paths and the names they are reported by. */
export interface TestQueue {
  files: { path: string; name: string }[]
  /** A directory where `<index>` exists once the file at that index has been taken. */
  claims: string
  timeoutMs: number
}

export const TEST_QUEUE = 'TEST_QUEUE'

/** Runs files from the queue named by $TEST_QUEUE until none is left. The entry of each such process. */
export function runQueuedFiles(): void {
  const queue = JSON.parse(readFileSync(process.env[TEST_QUEUE]!, 'utf8')) as TestQueue
  // Made outside any test: a suite registered in its scope is a top-level one, not a child of the file
  // that is ending.
  const topLevel = new AsyncResource('test-group')
  let next = 0

  const take = (): TestQueue['files'][number] | undefined => {
    for (; next < queue.files.length; next++) {
      try {
        closeSync(openSync(join(queue.claims, String(next)), 'wx'))
        return queue.files[next++]
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
    return undefined
  }

  const runNext = (): void => {
    const file = take()
    if (file === undefined) return
    topLevel.runInAsyncScope(() =>
      describe(file.name, { timeout: queue.timeoutMs }, async () => {
        // First, so that a failing hook of the file's own cannot stop it.
        after(runNext)
        await import(pathToFileURL(file.path).href)
      }),
    )
  }
  runNext()
}
