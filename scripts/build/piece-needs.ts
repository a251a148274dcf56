/**
 * What each compiled piece loads at run time, read from esbuild's metafile: the files of the output
 * directory (its bundle, the chunks it imports, statically or not, the workers and directories its code
 * finds beside itself) and the packages left to `node_modules`. The image copies exactly these into the
 * piece's runtime tree (`runtime-tree.ts`).
 */
import { builtinModules } from 'node:module'
import { basename } from 'node:path'
import type { Metafile } from 'esbuild'

export interface PieceNeeds {
  /** Names in the output directory: `.js` files and the `migrations` directory. */
  files: string[]
  /** Packages imported statically, and those only imported on demand (`import()`). */
  packages: string[]
  lazyPackages: string[]
}

/**
 * Files and packages reached without an import esbuild can see, by the source module that reaches them:
 * the pools' workers, the server threads and the migrations are found from `import.meta.url`, and the anvil binary through
 * `require.resolve` of a platform package named at run time (`@foundry-rs/anvil`'s optional dependency).
 * Anvil is named by the stack (`npm start`, the image's `demo`), the one piece that starts a devnet: the
 * pieces that read the devnet's deployment file share a chunk with `start-anvil.ts` without calling it.
 * The SDK's live client imports undici's WebSocket on Node 20 by a specifier that is not a literal (so
 * that browser bundles skip it).
 */
const FOUND_AT_RUN_TIME: Record<string, { files?: string[]; packages?: string[] }> = {
  'src/explorer/query/query-executor.ts': { files: ['query-worker.js'] },
  'src/explorer/indexer/range-pool.ts': { files: ['range-worker.js'] },
  'src/explorer/server-threads/server-threads.ts': { files: ['server-thread.js'] },
  'src/processor/db/migrate.ts': { files: ['migrations'] },
  'src/devnet/stack/run-stack.ts': { packages: ['@foundry-rs/anvil'] },
  'src/sdk/live/resolve-web-socket.ts': { packages: ['undici'] },
}

const builtins = new Set(builtinModules)
export const isPackage = (specifier: string) => !specifier.startsWith('node:') && !specifier.startsWith('.') && !specifier.startsWith('/') && !builtins.has(specifier)
export const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

/** Needs of each entry named in `entries`, keyed by entry name (`explorer`, `query-worker`, …). */
export function pieceNeeds(metafile: Metafile, entries: string[]): Record<string, PieceNeeds> {
  const outputs = metafile.outputs
  const byName = new Map(Object.keys(outputs).map((key) => [basename(key), key]))
  const result: Record<string, PieceNeeds> = {}
  for (const entry of entries) {
    const files = new Set<string>()
    const packages = new Set<string>()
    const lazy = new Set<string>()
    const visit = (name: string, onDemand: boolean) => {
      if (files.has(name)) return
      files.add(name)
      const output = outputs[byName.get(name) ?? '']
      if (!output) return
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const found = bytesInOutput > 0 ? FOUND_AT_RUN_TIME[input] : undefined
        for (const file of found?.files ?? []) visit(file, onDemand)
        for (const name of found?.packages ?? []) (onDemand ? lazy : packages).add(name)
      }
      for (const { path, kind, external } of output.imports) {
        const dynamic = onDemand || kind === 'dynamic-import'
        if (!external) visit(basename(path), dynamic)
        else if (isPackage(path)) (dynamic ? lazy : packages).add(packageOf(path))
      }
    }
    visit(`${entry}.js`, false)
    for (const name of packages) lazy.delete(name)
    result[entry] = { files: [...files].sort(), packages: [...packages].sort(), lazyPackages: [...lazy].sort() }
  }
  return result
}
