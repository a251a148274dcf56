/**
 * Where the page's compiled assets come from. Under tsx they are compiled from `client/` on first use
 * (once per process); `npm run build` replaces this module with one holding the result of the same
 * compilation (scripts/build/web-assets-plugin.ts), so the built explorer carries its assets inside.
 */
import type { WebAssets } from './web-assets.js'

export const loadWebAssets = async (): Promise<WebAssets> => (await import('./compile-web-assets.js')).compileWebAssets()
