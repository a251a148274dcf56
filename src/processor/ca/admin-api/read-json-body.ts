/**
 * A request body as the admin API accepts it: `application/json` (415 otherwise), at most 16 KiB (413,
 * refused from Content-Length before reading when it is declared), and valid JSON (400).
 */
import type { IncomingMessage } from 'node:http'
import { BodyTooLarge, ProblemError, readBody } from '../../../platform/http/index.js'

export const MAX_BODY_BYTES = 16 * 1024

/** `required` false: a request without a body gives undefined. */
export async function readJsonBody(req: IncomingMessage, required: boolean): Promise<unknown> {
  const declared = req.headers['content-length']
  const hasBody = (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined
  if (!hasBody && !required) return undefined
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw new ProblemError(415, `the body must be application/json, not ${mediaType ?? 'absent'}`)
  const body = await readBody(req, MAX_BODY_BYTES).catch((error: unknown) => {
    throw error instanceof BodyTooLarge ? new ProblemError(413, error.message) : error
  })
  try {
    return JSON.parse(body.toString('utf8')) as unknown
  } catch (error) {
    throw new ProblemError(400, 'the body is not valid JSON', undefined, { cause: error })
  }
}
