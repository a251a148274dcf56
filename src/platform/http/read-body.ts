/** A request body read whole under a size cap (form posts, webhooks); over the cap it throws BodyTooLarge. */
import type { IncomingMessage } from 'node:http'

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge'
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > maxBytes) throw new BodyTooLarge(`the body is larger than ${maxBytes} bytes`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) throw new BodyTooLarge(`the body is larger than ${maxBytes} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
