/**
 * The arguments for `process.execPath` that run one of the repository's scripts (`scripts/admin.ts`) as
 * its npm script does: through tsx. When the test itself runs from the JavaScript copy that `npm test`
 * makes (scripts/test-build.ts), the copy's transpiled script with plain Node instead: the same code,
 * transformed as tsx transforms it, without tsx's loader hooks (about 0.9 CPU-s) in every child, and
 * with `--liftoff-only`: undici's HTTP parser (the `fetch` behind the CA client and the wallet's calls; RPC
 * goes through node:http) is WebAssembly, which V8 compiles twice by default, the second time optimised,
 * for a process that lives a second or two: a process making one fetch measured 0.47-0.50 -> 0.27-0.32
 * CPU-s (8 runs each).
 * The child's working directory stays the caller's, as with `npm run`.
 */
import { fileURLToPath } from 'node:url'
import { repoRoot } from './repo-root.js'

/** Whether this file runs from the copy: its tree is not the repository's. */
const inCopy = fileURLToPath(new URL('../../..', import.meta.url)) !== repoRoot

export function scriptArgs(script: string): string[] {
  if (!inCopy) return ['--import', 'tsx', script]
  return ['--liftoff-only', '--enable-source-maps', fileURLToPath(new URL(`../../../${script.replace(/\.ts$/, '.js')}`, import.meta.url))]
}
