/**
 * Compiles the page (`client/`) for browsers with esbuild: one script, one style sheet, minified, content
 * hashes in their names, gzip and brotli made here. The same function runs on first use under tsx
 * (`npm start`, the tests) and in `npm run build`, which puts its result inside the explorer's bundle
 * (web-asset-source.ts), so production never loads esbuild and both serve the same bytes.
 */
import { fileURLToPath } from 'node:url'
import { makeAsset, type WebAssets } from './web-assets.js'
import { BaseError } from '../../../errors/index.js'

const CLIENT = fileURLToPath(new URL('./client/', import.meta.url))

export async function compileWebAssets(): Promise<WebAssets> {
  // A devDependency: loaded only where the sources are compiled, never by the built explorer.
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: { explorer: `${CLIENT}main.ts`, 'explorer-style': `${CLIENT}style.css` },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    outdir: '/',
    legalComments: 'none',
    logLevel: 'warning',
  })
  const output = (name: string) => {
    const file = result.outputFiles.find((f) => f.path === `/${name}`)
    if (!file) throw new BaseError(`esbuild wrote no ${name}`)
    return file.contents
  }
  const script = makeAsset('explorer.js', output('explorer.js'))
  const style = makeAsset('explorer.css', output('explorer-style.css'))
  return { files: [script, style], script: script.name, style: style.name }
}
