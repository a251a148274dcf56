/**
 * The page's static files as the explorer serves them: each under `/assets/` with a content hash in its
 * name, so it can be cached for a year, kept with its gzip and brotli encodings made once, never per request.
 */
import { createHash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export const ASSET_PREFIX = '/assets/'

export interface WebAsset {
  /** Path under `/assets/`, hash included: `explorer.3f9c1a2b7d.js`. */
  name: string
  contentType: string
  etag: string
  identity: Uint8Array
  gzip: Uint8Array
  br: Uint8Array
}

/** The compiled page: its assets by name, and the names the page shell links to. */
export interface WebAssets {
  files: WebAsset[]
  script: string
  style: string
}

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
}

export const contentHash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 12)

/** `explorer.js` → `explorer.<hash>.js`, with both encodings. */
export function makeAsset(plainName: string, bytes: Uint8Array): WebAsset {
  const hash = contentHash(bytes)
  const extension = plainName.slice(plainName.lastIndexOf('.') + 1)
  return {
    name: plainName.replace(/\.([a-z]+)$/, `.${hash}.$1`),
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    etag: `"${hash}"`,
    identity: bytes,
    gzip: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  }
}

/** JSON-safe form, for the build to carry compiled assets inside the bundle (web-asset-source.ts). */
export interface SerializedWebAssets {
  files: (Omit<WebAsset, 'identity' | 'gzip' | 'br'> & { identity: string; gzip: string; br: string })[]
  script: string
  style: string
}

export function serializeWebAssets(assets: WebAssets): SerializedWebAssets {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
  return { ...assets, files: assets.files.map((file) => ({ ...file, identity: base64(file.identity), gzip: base64(file.gzip), br: base64(file.br) })) }
}

export function deserializeWebAssets(assets: SerializedWebAssets): WebAssets {
  const bytes = (text: string) => Buffer.from(text, 'base64')
  return { ...assets, files: assets.files.map((file) => ({ ...file, identity: bytes(file.identity), gzip: bytes(file.gzip), br: bytes(file.br) })) }
}
