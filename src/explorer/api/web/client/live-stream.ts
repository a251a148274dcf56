/**
 * Follows `/events/stream` with an EventSource: the browser itself reconnects after a network drop with
 * the same URL (`since`) and `Last-Event-ID` once it has seen an event, so the explorer replays what was
 * missed. A refusal the EventSource gives up on (429 or 503 while the server is full) is retried here with
 * `since` set to the last cursor seen. Event names and their data are read with the protocol of wire/live-feed.ts.
 */
import { readSseSettlement, sseEvents, type Settlement } from '../../../../wire/index.js'

export interface StreamHandlers {
  /** The stream is open; `first` only on the first connection, when a view loads its page under it. */
  opened(first: boolean): void
  settlement(settlement: Settlement): void
  removed(settlement: Settlement): void
  state(text: string): void
}

const RETRY_MS = 3000

/** Starts following, after `since` when given (a cursor); the returned function stops. */
export function followStream(filter: Record<string, string>, handlers: StreamHandlers, since?: string): () => void {
  let source: EventSource | undefined
  let lastCursor = since
  let opened = false
  let retry: ReturnType<typeof setTimeout> | undefined
  const connect = () => {
    const params = new URLSearchParams(filter)
    if (lastCursor) params.set('since', lastCursor)
    const current = new EventSource(`/events/stream?${params}`)
    source = current
    current.addEventListener('open', () => {
      handlers.state('Live')
      handlers.opened(!opened)
      opened = true
    })
    const read = (deliver: (s: Settlement) => void) => (event: MessageEvent<string>) => {
      if (event.lastEventId) lastCursor = event.lastEventId
      const settlement = readSseSettlement(event.data)
      if (settlement) deliver(settlement)
    }
    current.addEventListener(sseEvents.SETTLEMENT, read(handlers.settlement))
    current.addEventListener(sseEvents.REMOVED, read(handlers.removed))
    current.addEventListener('error', () => {
      if (current.readyState !== EventSource.CLOSED) return handlers.state('Reconnecting…')
      handlers.state('Disconnected; retrying…')
      retry = setTimeout(connect, RETRY_MS)
    })
  }
  connect()
  return () => {
    clearTimeout(retry)
    source?.close()
  }
}
