/**
 * `npm run build`: every runnable piece compiled into `dist/` for plain `node dist/<piece>.js`
 * (scripts/build/build-pieces.ts says how). Flags: `--outdir <dir>` (default `dist`).
 */
import { statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { BuildError, buildPieces } from './build/build-pieces.js'

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } })
const outdir = resolve(values.outdir)
const started = performance.now()
try {
  const { files, warnings } = await buildPieces(outdir)
  for (const warning of warnings) console.warn(`build: warning: ${warning}`)
  const shown = relative(process.cwd(), outdir)
  const kib = (name: string) => Math.round(statSync(join(outdir, name)).size / 1024)
  console.log(
    `built in ${Math.round(performance.now() - started)} ms → ${shown.startsWith('..') ? outdir : shown || '.'}/: ` + files.map((name) => `${name} (${kib(name)} KiB)`).join(', '),
  )
} catch (error) {
  if (!(error instanceof BuildError)) throw error
  console.error(`build: ${error.message}`)
  process.exit(1)
}
