/**
 * A JSON-RPC relay between the explorer and anvil that a test can slow down or take offline, to
 * see what the explorer does with a slow or unreachable node.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RpcProxy {
  url: string
  /** Added before each answer. */
  delayMs: number
  /** When true, every request is answered 503 as a failing node would. */
  down: boolean
  stop(): Promise<void>
}

export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', delayMs: 0, down: false, stop: async () => {} }
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (proxy.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, proxy.delayMs))
    if (proxy.down) {
      res.writeHead(503).end('node unavailable')
      return
    }
    try {
      const upstream = await fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text())
    } catch {
      res.writeHead(502).end('upstream unreachable')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.stop = () => new Promise((resolve) => server.close(() => resolve()))
  return proxy
}
