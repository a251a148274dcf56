/**
 * A request body as the admin API accepts it: `application/json` (415 otherwise), at most 16 KiB (413,
 * refused from Content-Length before reading when it is declared), and valid JSON (400).
 */
import type { IncomingMessage } from 'node:http'
import { ProblemError } from '../../../wire/index.js'

export const MAX_BODY_BYTES = 16 * 1024

/** `required` false: a request without a body gives undefined. */
export async function readJsonBody(req: IncomingMessage, required: boolean): Promise<unknown> {
  const declared = req.headers['content-length']
  const hasBody = (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined
  if (!hasBody && !required) return undefined
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw new ProblemError(415, `the body must be application/json, not ${mediaType ?? 'absent'}`)
  if (Number(declared) > MAX_BODY_BYTES) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw tooLarge()
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch {
    throw new ProblemError(400, 'the body is not valid JSON')
  }
}

const tooLarge = () => new ProblemError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`)
