/**
 * One REST call across replicas: tried on the active replica, then on each other one in turn while the
 * failure is the server's or the network's. A 4xx is the request's own fault and would be the same
 * answer anywhere, so it is thrown at once, as is an aborted `signal`.
 */
import { ExplorerApiError, ExplorerNetworkError, ExplorerTimeoutError } from '../errors.js'
import type { Replica, ReplicaPool } from './replica-pool.js'

/** Whether another replica might answer where this one failed. */
export function isFailover(error: unknown): boolean {
  if (error instanceof ExplorerApiError) return error.status >= 500
  return error instanceof ExplorerNetworkError || error instanceof ExplorerTimeoutError
}

/** Runs `call` on one replica after another; rejects with the last failure when every replica failed. */
export async function withFailover<T>(pool: ReplicaPool, call: (replica: Replica) => Promise<T>): Promise<T> {
  const tried = new Set<Replica>()
  for (;;) {
    const replica = (await pool.pick(tried))!
    try {
      return await call(replica)
    } catch (error) {
      if (!isFailover(error)) throw error
      pool.failed(replica)
      tried.add(replica)
      if (tried.size === pool.replicas.length) throw error
    }
  }
}
