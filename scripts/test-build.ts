/**
 * The test files run as JavaScript transpiled once per run, not through the tsx hooks in every process.
 *
 * Under tsx every module a process loads, ours and the packages' (viem alone is some 360 files), goes
 * through loader hooks on another thread: a test file's process (and each worker thread it starts)
 * spends about 1 CPU-s more on loading than from plain JavaScript, and the suite is CPU-bound on two
 * cores. Measured over the whole suite: the test files' processes 426 → 323 CPU-s.
 *
 * `.test-build/run-<pid>/` mirrors the repository: src/, test/, scripts/ and bench/ copied with a `.js`
 * beside every `.ts` (esbuild file by file with tsx's own options: the transform tsx makes in each
 * process), every other top-level entry a symlink. Code that finds files from `import.meta.url`
 * (migrations, workers, the contracts) finds them there as in the repository, and the `.ts` sources stay
 * for tests that read them. The page's client, which esbuild bundles at run time, is a symlink to the
 * real one, so its bytes are those of the real sources; tests that build the pieces or the image do so
 * from the real tree (test/helpers/repo-root.ts). The scripts the tests spawn run from the copy too
 * (test/helpers/script.ts). Each run builds its own copy and removes it at the end, so runs side by side
 * in one tree do not disturb each other.
 */
import { build } from 'esbuild'
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'

const TEST_BUILD_DIR = '.test-build'
const CODE = ['src', 'test', 'scripts', 'bench']
/** Left as symlinks to the real tree: the benchmark peers' own projects, and sources esbuild bundles at run time. */
const LINKED = ['bench/peers', 'src/explorer/api/web/client']

/** Builds this run's copy of `root` and returns its path. */
export async function buildTests(root: string): Promise<string> {
  const parent = join(root, TEST_BUILD_DIR)
  removeAbandoned(parent, 'run-')
  const out = join(parent, `run-${process.pid}`)
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  // Tests write under `.data/`: the real one, as when they run from the repository.
  mkdirSync(join(root, '.data'), { recursive: true })
  for (const name of readdirSync(root)) {
    if (name !== TEST_BUILD_DIR && name !== '.git' && !CODE.includes(name)) symlinkSync(join(root, name), join(out, name))
  }
  const linked = new Set(LINKED.map((path) => join(root, path)))
  for (const dir of CODE) cpSync(join(root, dir), join(out, dir), { recursive: true, filter: (path) => !linked.has(path) && !path.endsWith('/node_modules') })
  for (const path of LINKED) if (existsSync(join(root, path))) symlinkSync(join(root, path), join(out, path))
  await build({
    entryPoints: CODE.flatMap((dir) => typeScriptFiles(join(out, dir))),
    outdir: out,
    outbase: out,
    bundle: false,
    format: 'esm',
    platform: 'node',
    // tsx's own transform options (tsx 4, `node_modules/tsx/dist`): the running Node's level, so that
    // import attributes stay as written; whitespace removed and names kept (a function's source text, as
    // a test may hand it to a browser, is the same as under tsx); source maps inline, without the sources.
    target: `node${process.versions.node}`,
    minifyWhitespace: true,
    keepNames: true,
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
  })
  return out
}

/** Removes a run's copy (`buildTests`' answer). */
export const removeTestBuild = (out: string) => rmSync(out, { recursive: true, force: true })

/** Where `file` (relative to the repository) runs from in the copy `out`. */
export const builtPath = (out: string, file: string) => join(out, file.replace(/\.ts$/, '.js'))

/** What runs killed before removing theirs left in `parent`, named `<prefix><pid>`: their process is gone. */
export function removeAbandoned(parent: string, prefix: string): void {
  if (!existsSync(parent)) return
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(name.slice(prefix.length))
    if (!Number.isInteger(pid) || !isAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true })
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** `.ts` files below `dir`, not following symlinks (the linked directories stay TypeScript). */
function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return typeScriptFiles(path)
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}
