/**
 * A TCP relay between a client (the SDK, a browser) and the explorer that a test can cut: every open
 * connection is destroyed and new ones are dropped until it is restored, while the explorer itself keeps
 * running and indexing — a network outage as the client sees it. `reset` ends them with a TCP reset, as
 * a dropped network does to a browser, rather than a clean close.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

export interface TcpProxy {
  url: string
  cut(): void
  restore(): void
  stop(): Promise<void>
}

export async function startTcpProxy(targetPort: number, { reset = false }: { reset?: boolean } = {}): Promise<TcpProxy> {
  const drop = (socket: Socket) => (reset ? socket.resetAndDestroy() : socket.destroy())
  const open = new Set<Socket>()
  let down = false
  const server = createServer((client) => {
    if (down) return void drop(client)
    const upstream = connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => {
        open.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      down = true
      for (const socket of open) drop(socket)
    },
    restore() {
      down = false
    },
    stop() {
      for (const socket of open) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
