/**
 * Binding a node:http server (the CA's admin API, the payment pages, the demo store): a port that is
 * taken is one line naming its setting, the URL is the address actually bound, and `close` ends every
 * connection — kept-alive ones and open event streams included — instead of waiting for them.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ConfigError } from '../../config/index.js'

export interface ListeningServer {
  /** `http://host:port` as bound. */
  url: string
  close(): Promise<void>
}

export async function listenNodeHttp(server: Server, { host, port, portSetting }: { host: string; port: number; portSetting: string }): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ConfigError(`${portSetting} ${port} on ${host} is not available (${error.code ?? error.message})`)))
    server.listen(port, host, resolve)
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
