/**
 * Keeps the layout of `src/` (docs/architecture.md) with check-layering.ts: imports point down, the wings
 * meet only through the SDK and `wire/`, pieces are entered through their `index.ts` (by `scripts/` and
 * `bench/` too), each area loads only its packages, re-exports hand on nothing their importers may not
 * import, and nothing imports in a cycle. The rules run on the real tree; each is also shown failing on a
 * made-up tree written to a temporary directory, so that the check cannot rot into one that passes everything.
 */
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../../src/devnet/testing/index.js'
import { checkTree, MAY_IMPORT, MAY_LOAD } from './check-layering.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Broken rules that other work of issue 42 removes; the lead empties this list at merge. Each line must
 * still be found on the tree (a fixed one is taken off here), and nothing else may be.
 */
const KNOWN_EXCEPTIONS: readonly string[] = [
]

/** A tree that breaks no rule, for the made-up violations to be added to. */
const CLEAN: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'settlement-explorer', type: 'module' }),
  'src/wire/index.ts': "import { getAddress } from 'viem'\nexport const wire = getAddress\n",
  'src/errors/index.ts': 'export class BaseError extends Error {}\n',
  'src/sdk/index.ts': "export { wire } from '../wire/index.js'\n",
  'src/explorer/store/index.ts': "export * from './keys.js'\n",
  'src/explorer/store/keys.ts': "import { open } from 'lmdb'\nexport const encodePk = open\n",
  'src/explorer/query/index.ts': "export * from './events-query.js'\n",
  'src/explorer/query/events-query.ts': "import { encodePk } from '../store/index.js'\nexport const page = encodePk\n",
  'src/explorer/api/register-rest.ts': "import { page } from '../query/index.js'\nexport const rest = page\n",
  'src/processor/ca/index.ts': "export * from './issue.js'\n",
  'src/processor/ca/issue.ts': "import { BaseError } from '../../errors/index.js'\nexport const issue = BaseError\n",
  'src/processor/widget/index.ts': "export const widget = 1\n",
  'src/processor/checkout/index.ts': "import { issue } from '../ca/index.js'\nexport const checkout = issue\n",
  'scripts/ca.ts': "import { issue } from '../src/processor/ca/index.js'\nimport { run } from './run.js'\nrun(issue)\n",
  'scripts/run.ts': 'export const run = (x: unknown) => x\n',
  'bench/run.ts': "import { page } from '../src/explorer/query/index.js'\nimport { dataset } from './data/dataset.js'\npage(dataset)\n",
  'bench/data/dataset.ts': 'export const dataset = 1\n',
  'test/helpers/local-chain.ts': 'export const chain = 1\n',
}

/** The violations of the clean tree with `files` written over it. */
function violationsWith(files: Record<string, string>): string[] {
  const dir = tempDir('layering-')
  for (const [path, text] of Object.entries({ ...CLEAN, ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return checkTree(dir).violations
}

describe('source layout', () => {
  test('the tree breaks no rule but the known exceptions, and each of those is still there', () => {
    const { violations, edges } = checkTree(root)
    assert.ok(edges > 1500, `only ${edges} imports read: the reader is broken`)
    assert.deepEqual(violations.filter((line) => !KNOWN_EXCEPTIONS.includes(line)), [])
    assert.deepEqual(KNOWN_EXCEPTIONS.filter((line) => !violations.includes(line)), [], 'fixed: take these off KNOWN_EXCEPTIONS')
  })

  test('every folder of src/ is an area of the layout, with its packages named', () => {
    const areas = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory())
    assert.deepEqual(areas.filter((area) => !(area in MAY_IMPORT) || !(area in MAY_LOAD)), [])
  })

  test('the made-up clean tree breaks no rule, so each case below fails for its own violation only', () => {
    assert.deepEqual(violationsWith({}), [])
  })
})

describe('each rule fails on a made-up violation', () => {
  test('an import up the layers, or across the wings', () => {
    assert.deepEqual(violationsWith({ 'src/wire/settlement.ts': "import { issue } from '../processor/ca/index.js'\nexport const s = issue\n" }), [
      'src/wire/settlement.ts imports src/processor/ca/index.ts: wire may not import processor',
    ])
    assert.deepEqual(violationsWith({ 'src/explorer/start.ts': "import { checkout } from '../processor/checkout/index.js'\nexport const s = checkout\n" }), [
      'src/explorer/start.ts imports src/processor/checkout/index.ts: explorer may not import processor',
    ])
  })

  test('a piece entered through a deep file, from src/, scripts/ or bench/', () => {
    assert.deepEqual(violationsWith({ 'src/processor/widget/routes.ts': "import { issue } from '../ca/issue.js'\nexport const r = issue\n" }), [
      'src/processor/widget/routes.ts imports src/processor/ca/issue.ts: enter src/processor/ca through its index.ts',
    ])
    assert.deepEqual(violationsWith({ 'bench/run.ts': "import { encodePk } from '../src/explorer/store/keys.js'\nencodePk()\n" }), [
      'bench/run.ts imports src/explorer/store/keys.ts: enter src/explorer/store through its index.ts',
    ])
    assert.deepEqual(violationsWith({ 'scripts/ca.ts': "import { chain } from '../test/helpers/local-chain.js'\nchain\n" }), [
      'scripts/ca.ts imports test/helpers/local-chain.ts: scripts/ and bench/ borrow nothing from test/',
    ])
  })

  test('the api reaching the store\'s functions directly, or anything of it through what query re-exports wholesale or by name', () => {
    assert.deepEqual(violationsWith({ 'src/explorer/api/register-rest.ts': "import { encodePk } from '../store/index.js'\nexport const rest = encodePk\n" }), [
      'src/explorer/api/register-rest.ts imports src/explorer/store/index.ts: explorer/api may not import explorer/store',
    ])
    // Naming the store's types reads nothing: the api may, and only that.
    assert.deepEqual(violationsWith({ 'src/explorer/api/live-hub.ts': "import type { Store } from '../store/index.js'\nimport { type Position, page } from '../query/index.js'\nexport type S = [Store, Position, typeof page]\n" }), [])
    assert.deepEqual(violationsWith({ 'src/explorer/api/live-hub.ts': "import { type Store, encodePk } from '../store/index.js'\nexport const s: [Store?, typeof encodePk?] = []\n" }), [
      'src/explorer/api/live-hub.ts imports src/explorer/store/index.ts: explorer/api may not import explorer/store',
    ])
    const throughQuery = 'src/explorer/api/register-rest.ts imports src/explorer/store through the re-exports of src/explorer/query/index.ts: explorer/api may not import explorer/store'
    assert.deepEqual(violationsWith({ 'src/explorer/query/index.ts': "export * from './events-query.js'\nexport * from '../store/index.js'\n" }), [throughQuery])
    assert.deepEqual(violationsWith({ 'src/explorer/query/index.ts': "export * from './events-query.js'\nexport { encodePk, type Position } from '../store/index.js'\n" }), [throughQuery])
    // Two re-exports deep: query's index hands on a query file that hands on the store.
    assert.deepEqual(violationsWith({ 'src/explorer/query/events-query.ts': "import { encodePk } from '../store/index.js'\nexport const page = encodePk\nexport { encodePk } from '../store/keys.js'\n" }), [
      'src/explorer/api/register-rest.ts imports src/explorer/store through the re-exports of src/explorer/query/index.ts: explorer/api may not import explorer/store',
      'src/explorer/query/events-query.ts imports src/explorer/store/keys.ts: enter src/explorer/store through its index.ts',
    ])
  })

  test('a cycle of three pieces (ca → widget → checkout → ca), with no cycle of files', () => {
    assert.deepEqual(violationsWith({
      'src/processor/ca/pages.ts': "import { widget } from '../widget/index.js'\nexport const p = widget\n",
      'src/processor/widget/routes.ts': "import { checkout } from '../checkout/index.js'\nexport const r = checkout\n",
    }), ['cycle of pieces: src/processor/ca → src/processor/widget → src/processor/checkout → src/processor/ca'])
  })

  test('a cycle of two files of one folder', () => {
    assert.deepEqual(violationsWith({
      'src/explorer/query/amount-query.ts': "import { run } from './run-events-query.js'\nexport const amount = run\n",
      'src/explorer/query/run-events-query.ts': "import { amount } from './amount-query.js'\nexport const run = () => amount\n",
    }), ['cycle of files: src/explorer/query/amount-query.ts → src/explorer/query/run-events-query.ts → src/explorer/query/amount-query.ts'])
  })

  test('a dynamic import of a computed name, unless a comment says why', () => {
    const load = "const name = 'issue'\nexport const load = () => import(`./${name}.js`)\n"
    assert.deepEqual(violationsWith({ 'src/processor/ca/load.ts': load }), [
      'src/processor/ca/load.ts:2: `import(`./${name}.js`)` imports a computed name; write the string, or say why in a "layering: dynamic import — <reason>" comment',
    ])
    const allowed = "const name = 'issue'\n// layering: dynamic import — the operator names the module in CA_PLUGIN\nexport const load = () => import(`./${name}.js`)\n"
    assert.deepEqual(violationsWith({ 'src/processor/ca/load.ts': allowed }), [])
    // A literal is an import like any other, held to the same rules.
    assert.deepEqual(violationsWith({ 'src/wire/lazy.ts': "export const lazy = () => import('../processor/ca/index.js')\n" }), [
      'src/wire/lazy.ts imports src/processor/ca/index.ts: wire may not import processor',
    ])
  })

  test('an import that only a comment shows is none', () => {
    assert.deepEqual(violationsWith({ 'src/wire/note.ts': "/** Not `import { issue } from '../processor/ca/index.js'`, nor import(name). */\n// import '../processor/ca/index.js'\nexport const note = 1\n" }), [])
  })

  test('the package imported by its own name', () => {
    assert.deepEqual(violationsWith({ 'src/wire/settlement.ts': "import type { Settlement } from 'settlement-explorer/sdk'\nexport type S = Settlement\n" }), [
      "src/wire/settlement.ts:1 imports 'settlement-explorer/sdk': src/ imports its own files by path, never as the package",
    ])
  })

  test('a package the area may not load', () => {
    assert.deepEqual(violationsWith({ 'src/wire/read.ts': "import { readFileSync } from 'node:fs'\nexport const read = readFileSync\n" }), [
      "src/wire/read.ts:1 loads 'node:fs': wire may load only viem",
    ])
    assert.deepEqual(violationsWith({ 'src/sdk/cache.ts': "import { open } from 'lmdb'\nexport const cache = open\n" }), [
      "src/sdk/cache.ts:1 loads 'lmdb': sdk may load only viem",
    ])
    assert.deepEqual(violationsWith({ 'src/errors/pg-error.ts': "import type { DatabaseError } from 'pg'\nexport type E = DatabaseError\n" }), [
      "src/errors/pg-error.ts:1 loads 'pg': errors may load no package",
    ])
  })

  test('an area the layout does not name', () => {
    assert.deepEqual(violationsWith({ 'src/utils/x.ts': "import { wire } from '../wire/index.js'\nexport const x = wire\n" }), [
      'src/utils/x.ts: src/utils is not an area of the layout',
    ])
  })
})
