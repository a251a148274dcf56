/**
 * `npm run build`: every runnable piece compiled into `dist/` for plain `node dist/<piece>.js`
 * (scripts/build/build-pieces.ts says how). Flags: `--outdir <dir>` (default `dist`); `--runtime <dir>`
 * also lays out each piece's runtime tree in `<dir>/<piece>/`, what its container image holds as `/app`
 * (scripts/build/runtime-tree.ts); `--pieces a,b` limits the trees to those pieces.
 */
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { BuildError, buildPieces } from './build/build-pieces.js'
import { layOutRuntimeTree, RUNTIME_PIECES } from './build/runtime-tree.js'

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' }, runtime: { type: 'string' }, pieces: { type: 'string' } } })
const outdir = resolve(values.outdir)
const shown = (dir: string) => {
  const path = relative(process.cwd(), dir)
  return path.startsWith('..') ? dir : path || '.'
}
const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1)
const started = performance.now()
try {
  const { files, warnings, needs } = await buildPieces(outdir)
  for (const warning of warnings) console.warn(`build: warning: ${warning}`)
  const kib = (name: string) => Math.round(statSync(join(outdir, name)).size / 1024)
  console.log(`built in ${Math.round(performance.now() - started)} ms → ${shown(outdir)}/: ` + files.map((name) => `${name} (${kib(name)} KiB)`).join(', '))
  if (values.runtime !== undefined) {
    const root = process.cwd()
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
    const pieces = values.pieces?.split(',') ?? Object.keys(RUNTIME_PIECES)
    for (const piece of pieces) {
      if (!(piece in RUNTIME_PIECES)) throw new BuildError(`no piece "${piece}" (${Object.keys(RUNTIME_PIECES).join(', ')})`)
      const dir = resolve(values.runtime, piece)
      rmSync(dir, { recursive: true, force: true })
      const tree = layOutRuntimeTree({ root, outdir, dir, piece, needs: needs[piece]!, version })
      console.log(`runtime ${shown(dir)}/: ${megabytes(tree.bytes)} MB, ${tree.packages.length} packages (${tree.packages.join(', ')})`)
    }
  }
} catch (error) {
  if (!(error instanceof BuildError)) throw error
  console.error(`build: ${error.message}`)
  process.exit(1)
}
