/**
 * One look at a replica's `GET /ready` (SPEC §3.1): 200 when its indexer is caught up, 503 with
 * `status: "syncing"` while it is behind. Used only to choose among several replicas, so it has a short
 * timeout of its own and never throws.
 */
import { endpointUrl } from '../urls.js'

/** `lagging`: the explorer answers but is behind the chain; `down`: no answer, or not the explorer's. */
export type Readiness = 'ready' | 'lagging' | 'down'

export async function probeReady(baseUrl: string, timeout: number): Promise<Readiness> {
  try {
    const response = await fetch(endpointUrl(baseUrl, '/ready'), { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeout) })
    const body = (await response.json()) as { status?: unknown }
    if (response.status === 200 && body.status === 'ready') return 'ready'
    // A proxy's own 503 (no backend) has another body: only the explorer's "syncing" means it is alive.
    return response.status === 503 && body.status === 'syncing' ? 'lagging' : 'down'
  } catch {
    return 'down'
  }
}
