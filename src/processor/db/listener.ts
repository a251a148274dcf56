/**
 * LISTEN on a dedicated connection (a pooled one would drop its subscriptions when released). When the
 * connection is lost it reconnects with backoff and calls `onReconnect`, because notifications sent
 * while it was away are gone: the caller re-reads whatever state they announce.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import type { Logger } from '../../platform/observability/index.js'

export interface Listener {
  close(): Promise<void>
}

export interface CreateListenerParams {
  url: string
  channels: string[]
  onNotify(channel: string, payload: string): void
  onReconnect?(): void
  log: Logger
}

const MAX_BACKOFF_MS = 5_000

export async function createListener(params: CreateListenerParams): Promise<Listener> {
  let closed = false
  let client: pg.Client | undefined

  const connect = async () => {
    const next = new pg.Client({ connectionString: params.url })
    next.on('notification', (message) => params.onNotify(message.channel, message.payload ?? ''))
    next.on('error', () => {})
    next.on('end', () => {
      if (!closed) void reconnect()
    })
    await next.connect()
    for (const channel of params.channels) await next.query(`LISTEN "${channel}"`)
    client = next
  }

  const reconnect = async () => {
    for (let backoff = 100; !closed; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
      try {
        await connect()
        params.log.info('database listener reconnected', { channels: params.channels })
        params.onReconnect?.()
        return
      } catch {
        await sleep(backoff)
      }
    }
  }

  await connect()
  return {
    async close() {
      closed = true
      await client?.end().catch(() => {})
    },
  }
}
