/**
 * Charge changes as they happen, for the pages' live status: one LISTEN connection per widget process on
 * `charge_changed` (sent by the checkout engine with every state change, on COMMIT), dispatched to the
 * watchers of that charge (shared-status.ts, one per charge or refund followed). After the listener
 * reconnects every watcher is told, since changes announced while it was away are gone: each re-reads its
 * charge once.
 */
import { chargeChangedChannel } from '../db/index.js'
import type { Database } from '../db/index.js'
import { createWatchers } from '../../platform/html/index.js'

export interface ChargeWatch {
  /** Calls `onChange` whenever the charge may have changed; returns the remover. */
  watch(chargeId: string, onChange: () => void): () => void
  close(): Promise<void>
}

export async function watchCharges(db: Database): Promise<ChargeWatch> {
  const watchers = createWatchers()
  const listener = await db.listen([chargeChangedChannel], (_, chargeId) => watchers.notify(chargeId), watchers.notifyAll)
  return { watch: watchers.watch, close: () => listener.close() }
}
