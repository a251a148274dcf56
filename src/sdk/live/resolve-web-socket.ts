/**
 * Picks the WebSocket implementation: the global one (browsers, Deno, Bun, Node 22+), else undici's
 * (Node 20). The undici import is dynamic and its specifier is not a literal, so a browser bundle neither
 * contains nor tries to resolve it.
 */
import { ExplorerError } from '../errors.js'

/** The part of the WHATWG WebSocket the SDK uses; both the browser's and undici's fit it. */
export interface WebSocketLike {
  readonly readyState: number
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: { code: number; reason: string }) => void) | null
  onerror: ((event: unknown) => void) | null
  send(data: string): void
  close(code?: number, reason?: string): void
}

export type WebSocketConstructor = new (url: string) => WebSocketLike

export const WS_OPEN = 1

let resolved: Promise<WebSocketConstructor> | undefined

export function resolveWebSocket(): Promise<WebSocketConstructor> {
  resolved ??= loadWebSocket().catch((error: unknown) => {
    resolved = undefined
    throw error
  })
  return resolved
}

async function loadWebSocket(): Promise<WebSocketConstructor> {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  if (global) return global
  const specifier = 'undici'
  // layering: dynamic import — undici only where there is no global WebSocket (Node 20), hidden from browser bundlers
  const undici = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as { WebSocket?: WebSocketConstructor }
  if (!undici.WebSocket) throw new ExplorerError('no WebSocket implementation: this runtime has no global WebSocket and undici has none')
  return undici.WebSocket
}
