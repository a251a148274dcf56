/**
 * devnet/ is what runs the product on a laptop (docs/architecture.md): nothing an operator runs in
 * production (the pieces of `npm run build`, `npm run admin`, `npm run db`) may load any of it, and
 * scripts/ and bench/ take what they share with the tests from src/devnet/testing/, never from test/.
 * Imports are followed by esbuild's own resolver, re-exports and dynamic imports included: what a bundle
 * of each entry would hold, so no form of import slips past a pattern.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { build, type Metafile } from 'esbuild'
import { PIECES } from '../../scripts/build/build-pieces.js'
import { repoRoot } from '../../src/devnet/testing/index.js'

/** The pieces of `npm run build` that only run the product locally. */
const LOCAL_PIECES = new Set(['demo', 'demo-store'])
const PRODUCTION_ENTRIES = [
  ...Object.entries(PIECES)
    .filter(([name]) => !LOCAL_PIECES.has(name))
    .map(([, path]) => path),
  'scripts/admin.ts',
  'scripts/db.ts',
]

/** Without `splitting`, each output holds all its entry loads (by entry); with it, shared code is built once. */
async function metafileOf(entries: string[], splitting = false): Promise<Metafile> {
  const { metafile } = await build({
    absWorkingDir: repoRoot,
    entryPoints: entries,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    splitting,
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'silent',
  })
  return metafile
}

/** "entry loads file" for every file under src/devnet/ that one of `entries` loads. */
async function devnetLoadedBy(entries: string[]): Promise<string[]> {
  const { outputs } = await metafileOf(entries)
  return Object.values(outputs).flatMap(({ entryPoint, inputs }) =>
    Object.keys(inputs)
      .filter((file) => file.startsWith('src/devnet/'))
      .map((file) => `${entryPoint} loads ${file}`),
  )
}

/** "file imports target" for every import, reached from `entries`, of a file matching `from` into a path matching `to`. */
async function importsBetween(entries: string[], from: RegExp, to: RegExp): Promise<string[]> {
  const { inputs } = await metafileOf(entries, true)
  return Object.entries(inputs).flatMap(([file, { imports }]) =>
    from.test(file) ? imports.filter(({ path, external }) => !external && to.test(path)).map(({ path }) => `${file} imports ${path}`) : [],
  )
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || path === join('bench', 'peers')) return []
    if (statSync(join(repoRoot, path)).isDirectory()) return typeScriptFiles(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

describe('devnet/ and test/ stay out of what they must not reach', () => {
  test('no production entry loads anything of src/devnet/', async () => {
    assert.ok(PRODUCTION_ENTRIES.length >= 12, `only ${PRODUCTION_ENTRIES.length} production entries: the list is broken`)
    assert.deepEqual(await devnetLoadedBy(PRODUCTION_ENTRIES), [])
  })

  test('no file of scripts/ or bench/ imports test/', async () => {
    const entries = [...typeScriptFiles('scripts'), ...typeScriptFiles('bench')]
    assert.ok(entries.length > 50, `only ${entries.length} files read: the walk is broken`)
    assert.deepEqual(await importsBetween(entries, /^(scripts|bench)\//, /^test\//), [])
  })

  test('the checks see what they look for: the local stack behind a dynamic import, a test importing the fixtures', async () => {
    assert.ok((await devnetLoadedBy(['scripts/start.ts'])).includes('scripts/start.ts loads src/devnet/stack/run-stack.ts'))
    assert.deepEqual(await importsBetween(['test/ca/admin-cli.test.ts'], /^test\//, /^src\/devnet\/testing\//), [
      'test/ca/admin-cli.test.ts imports src/devnet/testing/index.ts',
    ])
  })
})
