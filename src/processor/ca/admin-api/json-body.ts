/**
 * A request body as the admin API accepts it: `application/json` (415 otherwise), at most 16 KiB (413,
 * answered by serve-admin-api.ts from fastify's cap), and valid JSON (400).
 */
import { ProblemError } from '../../../platform/http/index.js'
import { type RouteRequest } from '../../../platform/route-server/index.js'

export const MAX_BODY_BYTES = 16 * 1024

/** `required` false: a request without a body gives undefined. */
export function parseJsonBody({ req, body }: RouteRequest, required: boolean): unknown {
  if ((body === undefined || body.length === 0) && !required) return undefined
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw new ProblemError(415, `the body must be application/json, not ${mediaType ?? 'absent'}`)
  try {
    return JSON.parse((body ?? Buffer.alloc(0)).toString('utf8')) as unknown
  } catch (error) {
    throw new ProblemError(400, 'the body is not valid JSON', undefined, { cause: error })
  }
}
