/**
 * A free TCP port for a server the caller starts next (PostgreSQL, a restarted piece). It is picked
 * below the kernel's ephemeral range when there is room: a port from that range can be taken by any
 * outgoing connection between picking it and binding it (PostgreSQL's initdb alone leaves a second),
 * while ports below it are only ever taken by an explicit bind.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { BaseError } from '../../errors/index.js'

const LOWEST = 10_000
const RANDOM_TRIES = 20

export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const below = ephemeralRangeStart()
  for (let i = 0; below - LOWEST > 1_000 && i < RANDOM_TRIES; i++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST))
    if (await bindAndRelease(port, host).catch(() => 0)) return port
  }
  return bindAndRelease(0, host)
}

function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 0
  } catch {
    return 0
  }
}

/** Binds `port` (0 = any the OS picks), releases it, and resolves the port that was bound. */
function bindAndRelease(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(port, host, () => {
      const address = server.address()
      const bound = typeof address === 'object' && address ? address.port : 0
      server.close(() => (bound > 0 ? resolve(bound) : reject(new BaseError('could not pick a free port', { retryable: true }))))
    })
  })
}
