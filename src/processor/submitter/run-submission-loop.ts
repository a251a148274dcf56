/**
 * The active submitter's loop, run while this process holds its relayer's advisory lock:
 * 1. recovery — re-send every recorded transaction still in flight (a crash may have come between
 *    recording and sending), continue nonces after both the chain's and the records', and resume
 *    watching the DROPPED submissions whose watch has not ended (recover-submission-loop.ts);
 * 2. each step — settle in-flight submissions from their receipts, unstick transactions stuck past the
 *    timeout (a higher fee only for one the node accepted, while the guard allows, up to the ceiling;
 *    settle-in-flight.ts), and, while the relayer guard allows, validate waiting submissions, sign them
 *    with fresh nonces and record them in one transaction; then queue them for sending (take-work.ts).
 * Sending runs beside the steps: each recorded batch goes to the node as one JSON-RPC batch request in
 * nonce order, after the previous batch was answered, so the next batch is validated and recorded, and
 * mined transactions settled, while the last one is sent. (One request per transaction, each waiting for
 * the last, costs a round trip per transaction — on anvil's automine also a block per transaction.)
 * A step that took work is followed at once by the next; otherwise the loop sleeps until a NOTIFY of
 * new work or the poll interval (receipts are looked for every `pollIntervalMs` while any are due).
 * A submission that cannot be decided yet (permit nonce ahead, node not answering) is put back for a
 * wait that doubles each time, and fails after `maxDeferrals` waits in a row without the owner's token
 * nonce moving (put-back.ts): permits signed for free cannot keep the submitter busy re-checking them, and fresh
 * submissions are taken before re-checks, executable ones before future ones (the gateway's class,
 * submissions.ts). A mined payment makes its owner's next ones due at once.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Hex, PublicClient } from 'viem'
import type { SubmitterSettings } from '../../config/index.js'
import type { Database } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { Doorbell } from './doorbell.js'
import { settleInFlight } from './settle-in-flight.js'
import { recoverSubmissionLoop } from './recover-submission-loop.js'
import { takeWork } from './take-work.js'

export interface SubmissionLoopContext {
  settings: SubmitterSettings
  publicClient: PublicClient
  /** The relayer's address, lower case. */
  relayer: Hex
  db: Database
  log: Logger
  signal: AbortSignal
  /** Rung when there may be new work (a NOTIFY) or the lock is lost. */
  doorbell: Doorbell
}

export async function runSubmissionLoop(ctx: SubmissionLoopContext): Promise<void> {
  const { settings, log, signal, doorbell } = ctx
  const parts = await recoverSubmissionLoop({ ...ctx, onAnswered: () => doorbell.ring() })
  while (!signal.aborted) {
    let busy = false
    try {
      const available = await parts.guard.available()
      await settleInFlight(parts, available)
      if (available) busy = await takeWork(parts)
    } catch (error) {
      log.warn('submitter step failed', { error })
      await sleep(settings.pollIntervalMs * 5, undefined, { signal }).catch(() => {})
    }
    if (!signal.aborted && !busy) await doorbell.wait(parts.inFlight.size > 0 ? settings.pollIntervalMs : settings.idlePollMs)
  }
  await parts.sends.drained()
}
