/**
 * `GET /events/export?format=csv|ndjson&<filters, order>`: every matching settlement as a file,
 * streamed a chunk at a time (query/export-rows.ts). Parameters are checked before the status line, so
 * a bad one is a 400 problem and never a truncated file. What an export may take is capped: exports
 * running at once, on all server threads together (503 past it) and per client address (429), each
 * with Retry-After; and its lifetime (EXPORT_MAX_SECONDS), past which its connection is closed
 * mid-file, which an HTTP client sees as an incomplete transfer (the chunked body never ends), never
 * as a complete file. Writes follow the client: a chunk at a time while uWS takes them, then nothing
 * until `onWritable` says the socket drained, so a slow reader holds the explorer to about one chunk
 * plus what the socket buffers, and no read transaction (each chunk reads in its own). Exports take
 * turns on the thread, 2 ms of writing per event-loop turn for all of them (export-turns.ts). A client
 * that goes away ends the walk at once.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { ExportLimits } from '../../../config/index.js'
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { checkTargetLength, errorReply, problemReply, reply, remoteAddress } from '../../../platform/http/index.js'
import { SharedConnections, sharedConnectionsMemory } from '../../../platform/limits/index.js'
import { openExport, type EventsQuery, type ExportFormat, type ExportWalk, type TokenCache } from '../../query/index.js'
import type { Store } from '../../store/index.js'
import { ExportTurns } from './export-turns.js'
import { parseExportQuery } from './parse-query.js'

const CHUNK_BYTES = 32 * 1024
/**
 * How long all exports of a thread together write per event-loop turn before other requests are served:
 * what an export flood adds to another request's wait, per turn (a chunk takes 0.1–2 ms, by load).
 */
const TURN_MS = 2
/** A slot frees when an export ends; files take seconds to minutes. */
export const EXPORT_RETRY_AFTER_SECONDS = 10

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' }

export interface ExportContext {
  store: Store
  tokens: TokenCache
  limits: ExportLimits
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client address (platform/http remoteAddress). */
  trustedProxies: readonly string[]
  /** Exports running, counted across server threads; without it, this thread's alone. */
  exports?: SharedConnections
  metrics: Metrics
  logger: Logger
}

/** The running exports' counts, shared by every thread that serves exports. */
export const exportCounts = (limits: ExportLimits, memory = sharedConnectionsMemory()) => new SharedConnections(memory, limits.maxConcurrent, limits.maxPerAddress)

export function registerExport(app: TemplatedApp, { store, tokens, limits, trustedProxies, metrics, logger, ...ctx }: ExportContext): void {
  const rowsSent = metrics.counter('export_rows_total', 'Settlements written into /events/export files')
  const finished = metrics.counter('exports_total', 'Exports ended, by outcome: complete, aborted by the client, expired (cut off at EXPORT_MAX_SECONDS), or failed (the store failed; cut off)')
  const refused = metrics.counter('exports_refused_total', 'Exports refused, by cap: server (EXPORT_MAX_CONCURRENT) or address (EXPORT_MAX_PER_ADDRESS)')
  const running = ctx.exports ?? exportCounts(limits)
  const turns = new ExportTurns(TURN_MS)
  let open = 0
  metrics.collected('exports_open', 'Exports being written', () => open)

  app.get('/events/export', (res, req) => {
    let format: ExportFormat
    let query: EventsQuery
    try {
      const search = req.getQuery()
      checkTargetLength(req, search)
      ;({ format, query } = parseExportQuery(search))
    } catch (error) {
      return reply(res, errorReply(error, logger))
    }
    const address = remoteAddress(res, req, trustedProxies)
    const refusal = running.refusal(address)
    if (refusal) {
      refused(1, { cap: refusal })
      const retry = { 'retry-after': String(EXPORT_RETRY_AFTER_SECONDS) }
      if (refusal === 'server') return reply(res, problemReply(503, `the explorer runs at most ${limits.maxConcurrent} exports at a time; retry later`, undefined, retry))
      return reply(res, problemReply(429, `the explorer runs at most ${limits.maxPerAddress} exports at a time for one client address; wait for one to end`, undefined, retry))
    }
    running.add(address)
    const walk = openExport(store, tokens, query, format)
    open++
    let done = false
    let waiting = false
    let counted = 0
    const end = (outcome: 'complete' | 'aborted' | 'expired' | 'failed') => {
      if (done) return
      done = true
      clearTimeout(lifetime)
      walk.close()
      running.remove(address)
      rowsSent(walk.rows - counted)
      open--
      finished(1, { outcome })
    }
    const cut = (outcome: 'expired' | 'failed') => {
      end(outcome)
      res.close()
    }
    // Unref'd: a stopping explorer does not wait for its exports' lifetimes.
    const lifetime = setTimeout(() => cut('expired'), limits.maxSeconds * 1000).unref()
    res.onAborted(() => end('aborted'))
    res.onWritable(() => {
      if (waiting && !done) {
        waiting = false
        turns.add(step)
      }
      return true
    })
    res.cork(() => {
      res
        .writeStatus('200 OK')
        .writeHeader('content-type', CONTENT_TYPES[format])
        .writeHeader('content-disposition', `attachment; filename="${exportFileName(query, format, walk)}"`)
        .writeHeader('cache-control', 'no-store')
        .writeHeader('access-control-allow-origin', '*')
    })

    /** One chunk; whether the export wants another turn at once (not when done, nor while the socket is full). */
    const step = () => {
      if (done) return false
      let chunk: Buffer | undefined
      try {
        chunk = walk.next(CHUNK_BYTES)
      } catch (error) {
        // The store failed (or closed under a stopping explorer): this file cannot be finished, the rest goes on.
        logger.error('export failed', { error })
        cut('failed')
        return false
      }
      rowsSent(walk.rows - counted)
      counted = walk.rows
      if (!chunk) {
        res.cork(() => res.end())
        end('complete')
        return false
      }
      if (chunk.length === 0) return true
      let accepted = true
      res.cork(() => {
        accepted = res.write(chunk)
      })
      waiting = !accepted
      return accepted
    }
    turns.add(step)
  })
}

/** `settlements_<filter>-<value>_…_head-<block>.<format>`: what the file holds, in characters any file system takes. */
export function exportFileName(q: EventsQuery, format: ExportFormat, walk: Pick<ExportWalk, 'head'>): string {
  const parts = ['settlements']
  const named: (keyof EventsQuery)[] = ['token', 'recipient', 'payer', 'address', 'orderReference', 'acquirerId', 'minAmount', 'maxAmount', 'fromBlock', 'toBlock', 'fromTimestamp', 'toTimestamp']
  for (const name of named) if (q[name] !== undefined) parts.push(`${name}-${String(q[name])}`)
  if (q.order === 'asc') parts.push('asc')
  parts.push(`head-${walk.head ?? 'none'}`)
  return `${parts.join('_')}.${format}`
}
