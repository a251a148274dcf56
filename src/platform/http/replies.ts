/**
 * Writing HTTP replies on uWebSockets.js. uWS forbids touching a response after the client aborted,
 * and wants writes after an await corked; every handler goes through `reply`/`replyLater` for that.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import type { Logger } from '../observability/index.js'
import { problem } from '../../wire/index.js'
import { ProblemError, problemHeaders } from './problem-error.js'

export interface Reply {
  status: number
  body: string | Uint8Array
  contentType?: string
  headers?: Record<string, string>
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  304: '304 Not Modified',
  400: '400 Bad Request',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  413: '413 Payload Too Large',
  414: '414 URI Too Long',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
}

/**
 * The parts every reply writes, as bytes: uWS measures and converts a JS string on each call (~0.5 µs of
 * a lookup's ~23 µs in perf), bytes it copies as they are.
 */
const STATUS_LINES = new Map(Object.entries(STATUS_TEXT).map(([status, line]) => [Number(status), Buffer.from(line)]))
const CONTENT_TYPE = Buffer.from('content-type')
const ALLOW_ORIGIN = Buffer.from('access-control-allow-origin')
const ANY_ORIGIN = Buffer.from('*')
/** Content types come from this code, never from a request: a handful of entries. */
const CONTENT_TYPES = new Map<string, Buffer>()
const contentType = (type: string) => {
  let bytes = CONTENT_TYPES.get(type)
  if (!bytes) CONTENT_TYPES.set(type, (bytes = Buffer.from(type)))
  return bytes
}

/** uWS parses request lines of any length that arrive in one read; longer ones are refused here. */
export const MAX_TARGET_BYTES = 8192

/** `search`: the request's query string (`req.getQuery()`), which callers read once and pass around. */
export function checkTargetLength(req: HttpRequest, search: string | undefined): void {
  const length = req.getUrl().length + (search?.length ?? 0)
  if (length > MAX_TARGET_BYTES) throw new ProblemError(414, `the request target is ${length} bytes; the limit is ${MAX_TARGET_BYTES}`)
}

export const JSON_TYPE = 'application/json; charset=utf-8'
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8'

export const json = (body: string | Uint8Array, status = 200): Reply => ({ status, body, contentType: JSON_TYPE })

export function problemReply(status: number, detail: string, param?: string, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(problem(status, detail, param)), contentType: PROBLEM_TYPE, headers }
}

/** Turns a thrown error into a reply: a ProblemError is the client's mistake, anything else is ours. */
export function errorReply(error: unknown, logger: Logger): Reply {
  if (error instanceof ProblemError) return problemReply(error.status, error.message, error.param, problemHeaders(error.status))
  logger.error('request failed', { error })
  return problemReply(500, 'the request could not be answered; it has been logged')
}

export function reply(res: HttpResponse, r: Reply): void {
  res.writeStatus(STATUS_LINES.get(r.status) ?? `${r.status} Status`)
  res.writeHeader(CONTENT_TYPE, contentType(r.contentType ?? JSON_TYPE))
  res.writeHeader(ALLOW_ORIGIN, ANY_ORIGIN)
  if (r.headers) for (const name in r.headers) res.writeHeader(name, r.headers[name]!)
  // No Content-Length on these (RFC 9110 §8.6): a 204 has no content, a 304's would describe the cached body.
  if (r.status === 204 || r.status === 304) res.endWithoutBody()
  else res.end(r.body)
}

/** Answers once `work` settles, unless the client went away first. Must be called synchronously in the handler. */
export function replyLater(res: HttpResponse, logger: Logger, work: () => Promise<Reply>): void {
  let aborted = false
  res.onAborted(() => {
    aborted = true
  })
  work()
    .catch((error: unknown) => errorReply(error, logger))
    .then((r) => {
      if (!aborted) res.cork(() => reply(res, r))
    })
}
