/**
 * Recovery, when this process takes the relayer's lock: what the loop works with is rebuilt from the
 * records, not from memory — every recorded transaction still in flight is queued for sending again (a
 * crash may have come between recording and sending), nonces continue after both the chain's and the
 * records', and the DROPPED submissions whose watch has not ended are watched again.
 */
import type { Hex, PublicClient } from 'viem'
import { createPermitTracker, createFeeCache, endpointsOf } from '../../chain/index.js'
import type { SubmitterSettings } from '../../config/index.js'
import { droppedWatches, highestRecordedNonce, inFlightSubmissions, type Database, type InFlight } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { createBroadcaster, type Broadcaster } from './broadcaster.js'
import { followReceipts, type ReceiptFollower } from './follow-receipts.js'
import { createRelayerGuard, type RelayerGuard } from './relayer-guard.js'
import { createSendQueue, type SendQueue } from './send-queue.js'
import type { ValidationContext } from './validate-submission.js'

export interface SubmissionLoopParts {
  settings: SubmitterSettings
  publicClient: PublicClient
  /** The relayer's address, lower case. */
  relayer: Hex
  db: Database
  log: Logger
  guard: RelayerGuard
  validation: ValidationContext
  /** Submissions recorded and not settled yet, by payload id. */
  inFlight: Map<string, InFlight>
  receipts: ReceiptFollower
  broadcaster: Broadcaster
  sends: SendQueue
}

export interface RecoverParams {
  settings: SubmitterSettings
  publicClient: PublicClient
  relayer: Hex
  db: Database
  log: Logger
  /** Called when the node answered a batch: the loop may have work again. */
  onAnswered: () => void
}

export async function recoverSubmissionLoop({ settings, publicClient, relayer, db, log, onAnswered }: RecoverParams): Promise<SubmissionLoopParts> {
  const fees = createFeeCache(publicClient)
  const guard = createRelayerGuard({
    publicClient,
    sql: db.pool,
    relayer,
    fees,
    minimum: settings.minBalance,
    checkIntervalMs: settings.balanceCheckMs,
    heartbeatMs: settings.heartbeatMs,
    log,
    runway: { settlementContract: settings.settlementContract, warnBelow: settings.runwayWarningPayments, measureMs: settings.runwayMeasureMs },
  })
  const validation: ValidationContext = {
    publicClient,
    permits: createPermitTracker(publicClient),
    chainId: settings.chainId,
    settlementContract: settings.settlementContract,
    relayer,
    deadlineMarginSeconds: settings.deadlineMarginSeconds,
  }

  const inFlight = new Map<string, InFlight>()
  const receipts = followReceipts({ publicClient, sql: db.pool, droppedAfterBlocks: settings.droppedAfterBlocks, droppedWatchBlocks: settings.droppedWatchBlocks, log })
  for (const entry of await inFlightSubmissions(db.pool, relayer)) inFlight.set(entry.payloadId, entry)
  receipts.resume(await droppedWatches(db.pool, relayer))
  const broadcaster = createBroadcaster({
    endpoints: endpointsOf(settings),
    relayerKey: settings.relayerKey,
    chainId: settings.chainId,
    fees,
    nextNonce: Math.max(await publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }), (await highestRecordedNonce(db.pool, relayer)) + 1),
    maxFeePerGas: settings.maxFeePerGas,
    log,
  })
  const sends = createSendQueue(broadcaster, onAnswered, log)
  sends.queue([...inFlight.values()].map((entry) => ({ payloadId: entry.payloadId, tx: entry.transactions.at(-1)! })))
  if (inFlight.size > 0) log.info('recovered in-flight submissions', { count: inFlight.size })
  return { settings, publicClient, relayer, db, log, guard, validation, inFlight, receipts, broadcaster, sends }
}
