/**
 * One active reconciler per database (decided): every checkout replica serves the merchant API, but only
 * the one holding the `checkout:reconciler` advisory lock follows the explorer, counts confirmations and
 * expires charges; the others stand by and try for the lock every CHECKOUT_STANDBY_POLL_MS. The lock is
 * held on the connection the active reconciler does all its work on, so a replica that loses it (crash,
 * network) can no longer write either; a standby takes over from the stored cursor. Charge rows are
 * still taken FOR UPDATE, because the API (cancel) changes charges from every replica.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { PublicClient } from 'viem'
import type { Database } from '../db/index.js'
import { tryReconcilerLock } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { runReconciliation, type ReconcilerSettings, type ReconcilerState } from './run-reconciliation.js'

export interface Reconciler {
  role(): 'active' | 'standby'
  /** Whether the active reconciler's explorer feed is connected (false on a standby). */
  connected(): boolean
  /** The chain head at the active reconciler's last poll. */
  head(): number | undefined
  stop(): Promise<void>
}

export interface ReconcilerServices {
  db: Database
  publicClient: PublicClient
  log: Logger
}

export function startReconciler(settings: ReconcilerSettings & { standbyPollMs: number }, { db, publicClient, log }: ReconcilerServices): Reconciler {
  const stopping = new AbortController()
  const state: ReconcilerState = { head: undefined, feed: undefined }
  let role: 'active' | 'standby' = 'standby'

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const client = await db.pool.connect().catch((error: Error) => {
        log.warn('reconciler: no database connection; retrying', { error })
        return undefined
      })
      const lost = new AbortController()
      const abort = () => lost.abort()
      client?.on('error', abort)
      const locked = client && (await tryReconcilerLock(client).catch(() => false))
      if (!client || !locked) {
        client?.off('error', abort)
        client?.release()
        await sleep(settings.standbyPollMs, undefined, { signal: stopping.signal }).catch(() => {})
        continue
      }
      // stop() may have come while the lock was being taken: an abort listener added now would never fire.
      if (stopping.signal.aborted) abort()
      stopping.signal.addEventListener('abort', abort, { once: true })
      client.on('end', abort)
      role = 'active'
      log.info('reconciler active: holding the reconciler lock')
      try {
        await runReconciliation({ client, publicClient, settings, state, log, signal: lost.signal })
      } catch (error) {
        log.error('active reconciler failed; releasing the lock', { error })
      } finally {
        role = 'standby'
        state.head = undefined
        stopping.signal.removeEventListener('abort', abort)
        // Destroying the connection releases the lock with it.
        client.release(true)
      }
      if (!stopping.signal.aborted) {
        log.warn('reconciler lost its lock connection; standing by')
        await sleep(settings.standbyPollMs, undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  })()

  return {
    role: () => role,
    connected: () => state.feed?.connected() ?? false,
    head: () => state.head,
    async stop() {
      stopping.abort()
      await loop
    },
  }
}
