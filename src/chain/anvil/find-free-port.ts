/** Asks the OS for a free TCP port by binding port 0, then releases it for the caller to use. */
import { createServer } from 'node:net'

export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not pick a free port'))))
    })
  })
}
