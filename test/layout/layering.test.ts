/**
 * Keeps the layout of `src/` (docs/architecture.md): imports point down, the explorer and the processor
 * meet only through the SDK and `wire/`, a piece is entered through its `index.ts`, and no two pieces
 * import each other. The rules are checked on the real tree, and each rule is shown failing on a
 * made-up import so that the check itself cannot rot into one that passes everything.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** What each area of `src/` may import besides itself; anything not listed is a broken rule. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  wire: [],
  errors: ['wire'],
  config: ['wire', 'errors'],
  sdk: ['wire'],
  platform: ['config', 'wire', 'errors'],
  chain: ['platform', 'config', 'wire', 'errors'],
  explorer: ['chain', 'platform', 'config', 'wire', 'errors'],
  processor: ['sdk', 'chain', 'platform', 'config', 'wire', 'errors'],
  devnet: ['processor', 'explorer', 'sdk', 'chain', 'platform', 'config', 'wire', 'errors'],
}

/** Inside the explorer, what each piece may import: the API reads the store only through the query layer. */
const EXPLORER_MAY_IMPORT: Record<string, readonly string[]> = {
  store: [],
  indexer: ['store'],
  query: ['store', 'indexer'],
  api: ['query', 'indexer'],
  // Composes the api in more threads, as start-explorer.ts does in the main one.
  'server-threads': ['api', 'query', 'store', 'indexer'],
  // Copies the store file whole (a new replica's, or one taken beside a serving explorer).
  snapshot: ['store'],
}

/** Areas made of several pieces, one per sub-folder; the others are one piece each. */
const AREAS_OF_PIECES = new Set(['platform', 'explorer', 'processor', 'devnet'])

interface Import {
  from: string
  to: string
}

/** `src/processor/checkout/api/x.ts` → `src/processor/checkout`; `src/wire/x.ts` → `src/wire`. */
export function pieceOf(file: string): string {
  const parts = file.split('/')
  const [top, area] = parts
  if (top !== 'src' || area === undefined) return file
  if (AREAS_OF_PIECES.has(area) && parts.length > 3) return parts.slice(0, 3).join('/')
  return parts.slice(0, 2).join('/')
}

function areaOf(file: string): string | undefined {
  const [top, area] = file.split('/')
  return top === 'src' ? area : undefined
}

/** Every broken rule among `imports`, one line each. Files outside `src/` (scripts) may import any area. */
export function findViolations(imports: readonly Import[]): string[] {
  const found: string[] = []
  const pieceEdges = new Map<string, Set<string>>()
  for (const { from, to } of imports) {
    const toArea = areaOf(to)
    if (toArea === undefined) continue
    const fromArea = areaOf(from)
    if (fromArea !== undefined && fromArea !== toArea) {
      const allowed = MAY_IMPORT[fromArea]
      if (allowed === undefined) found.push(`${from}: src/${fromArea} is not an area of the layout`)
      else if (!allowed.includes(toArea)) found.push(`${from} imports ${to}: ${fromArea} may not import ${toArea}`)
    }
    const fromPiece = pieceOf(from)
    const toPiece = pieceOf(to)
    if (fromPiece === toPiece) continue
    if (to !== `${toPiece}/index.ts`) found.push(`${from} imports ${to}: enter ${toPiece} through its index.ts`)
    const [fromSub, toSub] = [fromPiece, toPiece].map((piece) => /^src\/explorer\/([^/]+)$/.exec(piece)?.[1])
    if (fromSub !== undefined && toSub !== undefined && !EXPLORER_MAY_IMPORT[fromSub]?.includes(toSub)) {
      found.push(`${from} imports ${to}: explorer/${fromSub} may not import explorer/${toSub}`)
    }
    if (fromArea !== undefined) pieceEdges.set(fromPiece, (pieceEdges.get(fromPiece) ?? new Set()).add(toPiece))
  }
  for (const [a, targets] of pieceEdges) {
    for (const b of targets) {
      if (a < b && pieceEdges.get(b)?.has(a)) found.push(`${a} and ${b} import each other`)
    }
  }
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

function readImports(): Import[] {
  return ['src', 'scripts'].flatMap((dir) =>
    sourceFiles(join(root, dir)).flatMap((path) => {
      const from = relative(root, path)
      return [...readFileSync(path, 'utf8').matchAll(SPECIFIER)].map((match) => {
        const specifier = (match[1] ?? match[2])!
        return { from, to: relative(root, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts') }
      })
    }),
  )
}

describe('source layout', () => {
  test('the tree breaks no rule', () => {
    const imports = readImports()
    assert.ok(imports.length > 500, `only ${imports.length} imports read: the reader is broken`)
    assert.deepEqual(findViolations(imports), [])
  })

  test('every folder of src/ is an area of the layout', () => {
    const areas = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory())
    assert.deepEqual(areas.filter((area) => !(area in MAY_IMPORT)), [])
  })

  test('an import up the layers is refused', () => {
    assert.deepEqual(findViolations([{ from: 'src/sdk/explorer-client.ts', to: 'src/processor/db/index.ts' }]), [
      'src/sdk/explorer-client.ts imports src/processor/db/index.ts: sdk may not import processor',
    ])
    assert.deepEqual(findViolations([{ from: 'src/wire/settlement.ts', to: 'src/platform/http/index.ts' }]), [
      'src/wire/settlement.ts imports src/platform/http/index.ts: wire may not import platform',
    ])
  })

  test('the explorer and the processor do not import each other', () => {
    assert.deepEqual(findViolations([{ from: 'src/processor/gateway/start-gateway.ts', to: 'src/explorer/query/index.ts' }]), [
      'src/processor/gateway/start-gateway.ts imports src/explorer/query/index.ts: processor may not import explorer',
    ])
    assert.deepEqual(findViolations([{ from: 'src/explorer/start-explorer.ts', to: 'src/sdk/index.ts' }]), [
      'src/explorer/start-explorer.ts imports src/sdk/index.ts: explorer may not import sdk',
    ])
  })

  test('the explorer reads its store only through the query layer', () => {
    assert.deepEqual(findViolations([{ from: 'src/explorer/api/rest/register-rest.ts', to: 'src/explorer/store/index.ts' }]), [
      'src/explorer/api/rest/register-rest.ts imports src/explorer/store/index.ts: explorer/api may not import explorer/store',
    ])
    assert.deepEqual(findViolations([{ from: 'src/explorer/start-explorer.ts', to: 'src/explorer/store/index.ts' }]), [])
  })

  test('a piece is entered through its index.ts, inside an area too', () => {
    assert.deepEqual(findViolations([{ from: 'src/processor/widget/routes.ts', to: 'src/processor/checkout/api/ephemeral-token.ts' }]), [
      'src/processor/widget/routes.ts imports src/processor/checkout/api/ephemeral-token.ts: enter src/processor/checkout through its index.ts',
    ])
    assert.deepEqual(findViolations([{ from: 'scripts/start.ts', to: 'src/explorer/start-explorer.ts' }]), [
      'scripts/start.ts imports src/explorer/start-explorer.ts: enter src/explorer through its index.ts',
    ])
    assert.deepEqual(findViolations([{ from: 'src/processor/checkout/api/build-app.ts', to: 'src/processor/checkout/reconciliation/run.ts' }]), [])
  })

  test('two pieces that import each other are refused', () => {
    const imports = [
      { from: 'src/processor/checkout/api/charge-service.ts', to: 'src/processor/charges/index.ts' },
      { from: 'src/processor/charges/change-charge.ts', to: 'src/processor/checkout/index.ts' },
    ]
    assert.deepEqual(findViolations(imports), ['src/processor/charges and src/processor/checkout import each other'])
  })

  test('an area the layout does not name is refused', () => {
    assert.deepEqual(findViolations([{ from: 'src/utils/x.ts', to: 'src/wire/index.ts' }]), ['src/utils/x.ts: src/utils is not an area of the layout'])
  })
})
