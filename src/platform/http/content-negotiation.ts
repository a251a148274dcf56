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

const accepts = (acceptEncoding: string, coding: ContentCoding) =>
  new RegExp(`(^|,)\\s*${coding}\\s*(;\\s*q=(?!0(\\.0*)?\\s*(,|$))[0-9.]+)?\\s*(,|$)`).test(acceptEncoding.toLowerCase())

/** The coding to answer with, if the client takes one. */
export function acceptedCoding(acceptEncoding: string): ContentCoding | undefined {
  if (acceptEncoding === '') return undefined
  if (accepts(acceptEncoding, 'br')) return 'br'
  if (accepts(acceptEncoding, 'gzip')) return 'gzip'
  return undefined
}
