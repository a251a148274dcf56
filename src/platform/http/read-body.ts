/** A request body read whole under a size cap (form posts, webhooks); over the cap it throws BodyTooLarge. */
import type { IncomingMessage } from 'node:http'
import { BaseError } from '../../errors/index.js'

/** The same body is refused again: never retryable. */
export class BodyTooLarge extends BaseError {
  override name = 'BodyTooLarge'

  constructor(maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`, { details: { maxBytes } })
  }
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > maxBytes) throw new BodyTooLarge(maxBytes)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) throw new BodyTooLarge(maxBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
