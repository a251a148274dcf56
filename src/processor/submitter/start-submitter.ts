/**
 * A broadcast submitter process: the only holder of the relayer key. One instance per relayer is active
 * — the one holding a PostgreSQL advisory lock named after the relayer, on a connection of its own —
 * and the others stand by, trying for the lock. The lock dies with its connection, so when the active
 * process dies (kill -9 included) a standby takes over within `standbyPollMs` and starts with recovery.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { addressOfKey, checkChainId, createChainClient, endpointsOf } from '../../chain/index.js'
import type { ProcessorServices } from '../db/index.js'
import { channels } from '../db/index.js'
import { createDoorbell } from './doorbell.js'
import { runSubmissionLoop } from './run-submission-loop.js'
import type { SubmitterSettings } from '../../config/index.js'

export interface RunningSubmitter {
  relayer: string
  role(): 'active' | 'standby'
  stop(): Promise<void>
}

export type SubmitterServices = ProcessorServices

export async function startSubmitter(settings: SubmitterSettings, services: SubmitterServices): Promise<RunningSubmitter> {
  const { db } = services
  const relayer = addressOfKey(settings.relayerKey)
  const log = services.log.child({ piece: 'submitter', relayer })
  const publicClient = createChainClient({ ...endpointsOf(settings), chainId: settings.chainId, log })
  await checkChainId(publicClient, settings.chainId)

  const stopping = new AbortController()
  let role: 'active' | 'standby' = 'standby'
  const doorbell = createDoorbell()
  const listener = await db.listen([channels.enqueued], () => doorbell.ring())

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const lock = await tryLock(db.url, relayer).catch((error: Error) => {
        log.warn('advisory lock attempt failed', { error })
        return undefined
      })
      if (!lock) {
        await sleep(settings.standbyPollMs, undefined, { signal: stopping.signal }).catch(() => {})
        continue
      }
      // Losing the lock's connection means another submitter may take over: stop at once.
      const lost = new AbortController()
      const abortBoth = () => {
        lost.abort()
        doorbell.ring()
      }
      stopping.signal.addEventListener('abort', abortBoth, { once: true })
      // stop() may have come while the lock was being taken: its abort event is already past.
      if (stopping.signal.aborted) abortBoth()
      lock.on('error', abortBoth)
      lock.on('end', abortBoth)
      role = 'active'
      log.info('active: holding the relayer lock')
      try {
        await runSubmissionLoop({ settings, publicClient, relayer, db, log, signal: lost.signal, doorbell })
      } catch (error) {
        log.error('active submitter failed; releasing the lock', { error })
        await sleep(settings.standbyPollMs)
      } finally {
        role = 'standby'
        stopping.signal.removeEventListener('abort', abortBoth)
        await lock.end().catch(() => {})
      }
    }
  })()

  log.info('submitter started', { standbyPollMs: settings.standbyPollMs })
  return {
    relayer,
    role: () => role,
    async stop() {
      stopping.abort()
      doorbell.ring()
      await loop
      await listener.close()
    },
  }
}

/** A connection holding the relayer's session-level advisory lock, or undefined if another holds it. */
async function tryLock(url: string, relayer: string): Promise<pg.Client | undefined> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked`, [`submitter:${relayer}`])
  if (rows[0]?.locked) return client
  await client.end()
  return undefined
}
