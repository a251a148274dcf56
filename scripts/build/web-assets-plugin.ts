/**
 * Puts the explorer page's compiled assets inside the bundle: esbuild loads
 * `src/explorer/api/web/web-asset-source.ts` as a module holding the result of the very compilation that
 * module runs under tsx (content-hashed names, gzip and brotli included), so the built explorer serves
 * the same bytes without esbuild, and no file beside the bundle has to travel with it.
 */
import { dirname } from 'node:path'
import type { Plugin } from 'esbuild'
import { loadWebAssets, serializeWebAssets } from '../../src/explorer/api/index.js'

export const webAssetsPlugin: Plugin = {
  name: 'explorer-web-assets',
  setup(build) {
    build.onLoad({ filter: /[/\\]src[/\\]explorer[/\\]api[/\\]web[/\\]web-asset-source\.ts$/ }, async ({ path }) => {
      const assets = JSON.stringify(serializeWebAssets(await loadWebAssets()))
      return {
        loader: 'ts',
        resolveDir: dirname(path),
        contents: `import { deserializeWebAssets } from './web-assets.js'\nconst assets = deserializeWebAssets(${assets})\nexport const loadWebAssets = async () => assets\n`,
      }
    })
  },
}
