/**
 * A relay between a piece and a real explorer that can speak for a wrong or compromised explorer: REST
 * requests and the `/stream` WebSocket pass through unchanged, and the test can put frames of its own
 * (a REMOVED of a settlement the chain still holds) into every open stream.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocket, WebSocketServer } from 'ws'

export interface ExplorerRelay {
  url: string
  /** Every frame the explorer sent through the relay, parsed. */
  frames: Record<string, unknown>[]
  /** Sends `frame` to every stream open through the relay; returns how many got it. */
  inject(frame: unknown): number
  stop(): Promise<void>
}

export async function startExplorerRelay(targetUrl: string): Promise<ExplorerRelay> {
  const clients = new Set<WebSocket>()
  const frames: Record<string, unknown>[] = []
  const wss = new WebSocketServer({ noServer: true })
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    try {
      const upstream = await fetch(targetUrl + req.url, {
        method: req.method,
        headers: { accept: req.headers.accept ?? '*/*', ...(req.headers['content-type'] && { 'content-type': req.headers['content-type'] }) },
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      })
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' }).end(Buffer.from(await upstream.arrayBuffer()))
    } catch {
      res.writeHead(502).end('explorer unreachable')
    }
  })
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(targetUrl.replace(/^http/, 'ws') + req.url)
      const early: string[] = []
      clients.add(client)
      client.on('message', (data) => (upstream.readyState === WebSocket.OPEN ? upstream.send(data.toString()) : early.push(data.toString())))
      upstream.on('open', () => early.splice(0).forEach((frame) => upstream.send(frame)))
      upstream.on('message', (data) => {
        frames.push(JSON.parse(data.toString()) as Record<string, unknown>)
        if (client.readyState === WebSocket.OPEN) client.send(data.toString())
      })
      const end = () => {
        clients.delete(client)
        client.terminate()
        upstream.terminate()
      }
      client.on('close', end).on('error', end)
      upstream.on('close', end).on('error', end)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    frames,
    inject(frame) {
      for (const client of clients) client.send(JSON.stringify(frame))
      return clients.size
    },
    async stop() {
      for (const client of clients) client.terminate()
      wss.close()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
