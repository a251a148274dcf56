/**
 * A JSON-RPC relay between a piece and anvil that a test can slow down, take offline, make refuse one
 * method, hide or rewrite what it would answer, to see what the piece does with a slow, unreachable,
 * erring, lagging or lying node.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RpcProxy {
  url: string
  /** Added before each answer. */
  delayMs: number
  /** When true, every request is answered 503 as a failing node would. */
  down: boolean
  /** Requests it picks get a JSON-RPC error (-32602, as a node in the middle of a reorg may answer). */
  refuse?: (request: RpcRequest) => boolean
  /** How many requests were refused that way. */
  refused: number
  /** Requests it picks are answered `result: null` without asking the node ("no such receipt"). */
  hide?: (request: RpcRequest) => boolean
  /** Every answer the node gives passes through it: what it returns is sent instead of `result`. */
  rewrite?: (request: RpcRequest, result: unknown) => unknown
  stop(): Promise<void>
}

export interface RpcRequest {
  id?: unknown
  method?: string
  params?: unknown[]
}

export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', delayMs: 0, down: false, refused: 0, stop: async () => {} }
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (proxy.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, proxy.delayMs))
    if (proxy.down) {
      res.writeHead(503).end('node unavailable')
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString() || 'null') as RpcRequest | RpcRequest[] | null
    const requests = Array.isArray(body) ? body : [body]
    const refused = (r: RpcRequest | null): r is RpcRequest => r !== null && (proxy.refuse?.(r) ?? false)
    const hidden = (r: RpcRequest | null) => r !== null && (proxy.hide?.(r) ?? false)
    if (proxy.rewrite || requests.some((r) => refused(r) || hidden(r))) {
      // Answered one by one: the refused ones get the error, the hidden ones null, the others the node's answer.
      const answers = await Promise.all(requests.map((r) => (refused(r) ? refusal(r) : hidden(r) ? { jsonrpc: '2.0', id: r!.id, result: null } : forward(r))))
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]))
      return
    }
    try {
      const upstream = await fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text())
    } catch {
      res.writeHead(502).end('upstream unreachable')
    }
  })
  const refusal = (request: RpcRequest) => {
    proxy.refused++
    return { jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'Invalid parameters were provided to the RPC method' } }
  }
  const forward = async (request: RpcRequest | null) => {
    const answer = (await (await fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })).json()) as { result?: unknown }
    return proxy.rewrite && request && 'result' in answer ? { ...answer, result: proxy.rewrite(request, answer.result) } : answer
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.stop = () => new Promise((resolve) => server.close(() => resolve()))
  return proxy
}
