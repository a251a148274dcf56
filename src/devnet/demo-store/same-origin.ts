/**
 * The store's browser forms (buy, demo wallet) act on a person's behalf, so another site must not be able
 * to post them (cross-site request forgery). A browser names the page a POST comes from in `Origin`
 * (`null` from sandboxes and some redirects) and, lately, `Sec-Fetch-Site`: either one saying it is not
 * this store refuses the request. A request with neither comes from no browser page (curl, scripts) and
 * passes: it could send any header it liked anyway.
 */
import type { IncomingMessage } from 'node:http'

export function isCrossSite(req: IncomingMessage): boolean {
  // A browser that says where the request comes from is believed: its Origin may be "null" on a
  // same-origin form post (the pages' Referrer-Policy is no-referrer).
  const site = req.headers['sec-fetch-site']
  if (site !== undefined) return site !== 'same-origin' && site !== 'none'
  const origin = req.headers.origin
  if (origin === undefined) return false
  try {
    return new URL(origin).host !== req.headers.host
  } catch {
    return true
  }
}
