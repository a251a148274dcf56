/**
 * Addresses of the explorer's endpoints relative to the client's `baseUrl`. A path prefix in `baseUrl`
 * (an explorer behind a reverse proxy at `/explorer`) is kept for REST and WebSocket alike.
 */
import type { ExplorerClientOptions } from './types.js'

function withPath(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl)
  url.pathname = url.pathname.replace(/\/+$/, '') + path
  url.search = ''
  url.hash = ''
  return url
}

/** `query`: parameters by name (a query type of types.ts); undefined ones are left out. */
export function endpointUrl(baseUrl: string, path: string, query: object = {}): string {
  const url = withPath(baseUrl, path)
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value))
  }
  return url.toString()
}

/** `baseUrl` with a ws/wss scheme and `/stream` (SPEC §4). */
export function defaultWsUrl(baseUrl: string): string {
  const url = withPath(baseUrl, '/stream')
  if (url.protocol === 'http:') url.protocol = 'ws:'
  else if (url.protocol === 'https:') url.protocol = 'wss:'
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new TypeError(`baseUrl must be an http(s) address, got ${baseUrl}`)
  return url.toString()
}

/** The replicas `baseUrl` and `baseUrls` name, in that order and each once, with their WebSocket addresses. */
export function replicaUrls(options: Pick<ExplorerClientOptions, 'baseUrl' | 'baseUrls' | 'wsUrl'>): { baseUrl: string; wsUrl: string }[] {
  const baseUrls = [...new Set([...(options.baseUrl === undefined ? [] : [options.baseUrl]), ...(options.baseUrls ?? [])])]
  if (baseUrls.length === 0) throw new TypeError('an explorer client needs baseUrl or baseUrls')
  if (options.wsUrl !== undefined && baseUrls.length > 1) throw new TypeError('wsUrl goes with a single base URL; with several, each one\'s WebSocket address is derived from it')
  return baseUrls.map((baseUrl) => ({ baseUrl, wsUrl: options.wsUrl ?? defaultWsUrl(baseUrl) }))
}
