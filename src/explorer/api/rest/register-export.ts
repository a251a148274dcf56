/**
 * `GET /events/export?format=csv|ndjson&<filters, order>`: every matching settlement as a file,
 * streamed from one read transaction (query/export-rows.ts). Parameters are checked before the status
 * line, so a bad one is a 400 problem and never a truncated file. Writes follow the client: a chunk at
 * a time while uWS takes them, then nothing until `onWritable` says the socket drained, so a slow
 * reader holds the explorer to about one chunk plus what the socket buffers. Chunks are written for at
 * most a slice of each event-loop turn, so an export never stalls other requests. A client that goes
 * away ends the walk and its transaction at once.
 */
import type { TemplatedApp } from 'uWebSockets.js'
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { checkTargetLength, errorReply, reply } from '../../../platform/http/index.js'
import { openExport, type EventsQuery, type ExportFormat, type ExportWalk, type Store, type TokenCache } from '../../query/index.js'
import { parseExportQuery } from './parse-query.js'

const CHUNK_BYTES = 64 * 1024
/** Bytes written per event-loop turn before yielding to other requests. */
const TURN_BYTES = 1024 * 1024

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' }

export interface ExportContext {
  store: Store
  tokens: TokenCache
  metrics: Metrics
  logger: Logger
}

export function registerExport(app: TemplatedApp, { store, tokens, metrics, logger }: ExportContext): void {
  const rowsSent = metrics.counter('export_rows_total', 'Settlements written into /events/export files')
  const finished = metrics.counter('exports_total', 'Exports ended, by outcome: complete, or aborted by the client')
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
    const walk = openExport(store, tokens, query, format)
    open++
    let done = false
    let waiting = false
    let counted = 0
    const end = (outcome: 'complete' | 'aborted') => {
      if (done) return
      done = true
      walk.close()
      rowsSent(walk.rows - counted)
      open--
      finished(1, { outcome })
    }
    res.onAborted(() => end('aborted'))
    res.onWritable(() => {
      if (waiting && !done) {
        waiting = false
        pump()
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

    const pump = () => {
      let written = 0
      while (!done && written < TURN_BYTES) {
        const chunk = walk.next(CHUNK_BYTES)
        rowsSent(walk.rows - counted)
        counted = walk.rows
        if (!chunk) {
          res.cork(() => res.end())
          return end('complete')
        }
        let accepted = true
        res.cork(() => {
          accepted = res.write(chunk)
        })
        written += chunk.length
        if (!accepted) {
          waiting = true
          return
        }
      }
      if (!done) setImmediate(pump)
    }
    pump()
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
