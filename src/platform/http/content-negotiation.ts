/**
 * The two request headers a cacheable answer is negotiated by, read the same way by every uWS route:
 * `If-None-Match` (weak or strong tags, a list, or `*`) and `Accept-Encoding` (brotli first, then gzip;
 * a coding with q=0 is refused).
 */
export type ContentCoding = 'br' | 'gzip'

export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === '') return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}

/** A coding listed without `q=0`; made once, since every cached answer asks. */
const accepting = (coding: ContentCoding) => new RegExp(`(^|,)\\s*${coding}\\s*(;\\s*q=(?!0(\\.0*)?\\s*(,|$))[0-9.]+)?\\s*(,|$)`)
const ACCEPTS_BR = accepting('br')
const ACCEPTS_GZIP = accepting('gzip')

/** The coding to answer with, if the client takes one. */
export function acceptedCoding(acceptEncoding: string): ContentCoding | undefined {
  if (acceptEncoding === '') return undefined
  const header = acceptEncoding.toLowerCase()
  if (ACCEPTS_BR.test(header)) return 'br'
  if (ACCEPTS_GZIP.test(header)) return 'gzip'
  return undefined
}
