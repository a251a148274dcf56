/**
 * The pages' live status streams (`/s/:id/events`, `/r/:id/events`) under caps (issue 38 item 4): at
 * most `maxStreams` open in the process and `maxStreamsPerAddress` per client address (requestAddress:
 * behind TRUSTED_PROXIES the forwarded one, IPv6 by /64), checked before anything is read; past them a
 * problem, 503 or 429, with Retry-After. A slot is taken at once, so streams still opening count, and
 * given back when the client goes away. Statuses come from one read per change shared by every stream of
 * the id (shared-status.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { openEventStream, requestAddress, sendProblem, type EventStream } from '../../platform/http/index.js'
import { ConnectionsPerAddress } from '../../platform/limits/index.js'
import type { Metrics } from '../../platform/observability/index.js'
import type { LiveStreamLimits } from '../../config/index.js'
import type { SharedStatus, StatusRead } from './shared-status.js'

export interface LiveStreams {
  /** What `read` says of `id` now and after every change, as server-sent `status` events on `res`. */
  serve(req: IncomingMessage, res: ServerResponse, id: string, read: StatusRead): Promise<void>
}

export function liveStreams(limits: LiveStreamLimits, statuses: SharedStatus, metrics: Metrics): LiveStreams {
  const perAddress = new ConnectionsPerAddress(limits.maxStreamsPerAddress)
  let open = 0
  const refused = metrics.counter('live_streams_refused_total', 'Live status streams refused at a cap, by cap (server, address)')
  metrics.collected('live_streams_open', 'Live status streams open (or opening) now', () => open)

  return {
    async serve(req, res, id, read) {
      const address = requestAddress(req, limits.trustedProxies)
      if (open >= limits.maxStreams) {
        refused(1, { cap: 'server' })
        return sendProblem(res, 503, `the widget holds ${limits.maxStreams} live status streams, its most; retry later`, { 'retry-after': String(limits.retryAfterSeconds) })
      }
      if (!perAddress.admits(address)) {
        refused(1, { cap: 'address' })
        return sendProblem(res, 429, `${limits.maxStreamsPerAddress} live status streams are open from your network, its most; close one or retry later`, { 'retry-after': String(limits.retryAfterSeconds) })
      }
      open++
      perAddress.add(address)
      let unfollow: (() => void) | undefined
      let closed = false
      res.once('close', () => {
        closed = true
        open--
        perAddress.remove(address)
        unfollow?.()
      })
      let stream: EventStream | undefined
      // A client gone before its first status gets no stream (whose heartbeat would never be stopped).
      const followed = await statuses.follow(id, read, (status) => !closed && (stream ??= openEventStream(res)).send('status', status))
      if (followed === 'unknown') return sendProblem(res, 404, `no ${id.startsWith('re_') ? 'refund' : 'charge'} ${id}`)
      if (followed === 'unreadable') return sendProblem(res, 503, 'the status cannot be read now; retry later', { 'retry-after': String(limits.retryAfterSeconds) })
      if (closed) followed()
      else unfollow = followed
    },
  }
}
