/**
 * The client's key of a request, for per-address limits (client-address.ts), as each server kind gets
 * its peer and headers: uWS (only while its handler runs) and node:http (the widget, fastify's `raw`).
 */
import type { IncomingMessage } from 'node:http'
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { clientAddress } from './client-address.js'

/** Every X-Forwarded-For line of a uWS request joined as node:http joins them (uWS's getHeader gives the first only). */
function forwardedFor(req: HttpRequest): string | undefined {
  let joined: string | undefined
  req.forEach((name, value) => {
    if (name === 'x-forwarded-for') joined = joined === undefined ? value : `${joined}, ${value}`
  })
  return joined
}

export function remoteAddress(res: HttpResponse, req: HttpRequest, trustedProxies: readonly string[]): string {
  const peer = Buffer.from(res.getRemoteAddressAsText()).toString()
  return clientAddress(peer, trustedProxies.length > 0 ? forwardedFor(req) : undefined, trustedProxies)
}

export function requestAddress(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const header = req.headers['x-forwarded-for']
  return clientAddress(req.socket.remoteAddress ?? '', Array.isArray(header) ? header.join(', ') : header, trustedProxies)
}
