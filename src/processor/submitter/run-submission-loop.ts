/**
 * The active submitter's loop, run while this process holds its relayer's advisory lock:
 * 1. recovery — re-send every recorded transaction still in flight (a crash may have come between
 *    recording and sending), continue nonces after both the chain's and the records', and resume
 *    watching the DROPPED submissions whose watch has not ended;
 * 2. each step — settle in-flight submissions from their receipts, unstick transactions stuck past the
 *    timeout (a higher fee only for one the node accepted, while the guard allows, up to the ceiling),
 *    and, while the relayer guard allows, validate waiting submissions, sign them with fresh nonces and
 *    record them in one transaction; then queue them for sending.
 * Sending runs beside the steps: each recorded batch goes to the node as one JSON-RPC batch request in
 * nonce order, after the previous batch was answered, so the next batch is validated and recorded, and
 * mined transactions settled, while the last one is sent. (One request per transaction, each waiting for
 * the last, costs a round trip per transaction — on anvil's automine also a block per transaction.)
 * A step that took work is followed at once by the next; otherwise the loop sleeps until a NOTIFY of
 * new work or the poll interval (receipts are looked for every `pollIntervalMs` while any are due).
 * A submission that cannot be decided yet (permit nonce ahead, node not answering) is put back for a
 * wait that doubles each time, and fails after `maxDeferrals` waits in a row without the owner's token
 * nonce moving: permits signed for free cannot keep the submitter busy re-checking them, and fresh
 * submissions are taken before re-checks, executable ones before future ones (the gateway's class,
 * submissions.ts). A mined payment makes its owner's next ones due at once.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { encodeFunctionData, type Hex, type PublicClient } from 'viem'
import { intentOfAcquiring, intentOfPayment, type BuyAcquiringPackRequest, type PaymentIntent, type TransferRequest } from '../../wire/index.js'
import { createPermitTracker, endpointsOf } from '../../chain/index.js'
import { PAYMENT_GAS } from '../../chain/index.js'
import { createFeeCache } from '../../chain/index.js'
import type { Database } from '../db/index.js'
import {
  deferSubmission,
  droppedWatches,
  highestRecordedNonce,
  inFlightSubmissions,
  markFailed,
  markPending,
  recordTransactions,
  waitingSubmissions,
  type InFlight,
} from '../db/index.js'
import type { SubmissionRow } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { createBroadcaster } from './broadcaster.js'
import { followReceipts } from './follow-receipts.js'
import type { Doorbell } from './doorbell.js'
import { createRelayerGuard } from './relayer-guard.js'
import { createSendQueue } from './send-queue.js'
import type { SubmitterSettings } from '../../config/index.js'
import { validateSubmission, type ValidationContext, type Verdict } from './validate-submission.js'

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

/** buyAcquiringPack is rare and its gas varies with the acquirer table: estimated, with headroom. */
const ACQUIRING_GAS_HEADROOM = 5n

export async function runSubmissionLoop(ctx: SubmissionLoopContext): Promise<void> {
  const { settings, publicClient, relayer, db, log, signal } = ctx
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
  const sends = createSendQueue(broadcaster, () => ctx.doorbell.ring(), log)
  sends.queue([...inFlight.values()].map((entry) => ({ payloadId: entry.payloadId, tx: entry.transactions.at(-1)! })))
  if (inFlight.size > 0) log.info('recovered in-flight submissions', { count: inFlight.size })

  while (!signal.aborted) {
    let busy = false
    try {
      const available = await guard.available()
      await settleInFlight(available)
      if (available) busy = await takeWork()
    } catch (error) {
      log.warn('submitter step failed', { error })
      await sleep(settings.pollIntervalMs * 5, undefined, { signal }).catch(() => {})
    }
    if (!signal.aborted && !busy) await ctx.doorbell.wait(inFlight.size > 0 ? settings.pollIntervalMs : settings.idlePollMs)
  }
  await sends.drained()

  /**
   * In-flight submissions whose nonce the chain has consumed get their outcome from the receipts; the
   * others, unmined past the timeout, are unstuck. `mayBump`: the relayer guard allows spending.
   */
  async function settleInFlight(mayBump: boolean): Promise<void> {
    if (inFlight.size === 0 && !receipts.watching()) return
    const consumed = await publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' })
    await receipts.settle(inFlight, consumed)
    sends.keepOnly((payloadId) => inFlight.has(payloadId))
    for (const entry of inFlight.values()) {
      if (entry.nonce >= consumed && Date.now() - entry.transactions.at(-1)!.sentAt.getTime() > settings.stuckTimeoutMs) await unstick(entry, mayBump)
    }
  }

  /**
   * A replacement with higher fees, recorded and sent — only when the node accepted the transaction it
   * replaces, the guard allows spending and the fee ceiling leaves room. Otherwise the same bytes are
   * sent again (the node may have dropped or never had them) and the timer restarts.
   */
  async function unstick(entry: InFlight, mayBump: boolean): Promise<void> {
    const last = entry.transactions.at(-1)!
    const byGrowth = entry.transactions[0]!.maxFeePerGas * BigInt(settings.maxFeeGrowth)
    const ceiling = settings.maxFeePerGas !== undefined && settings.maxFeePerGas < byGrowth ? settings.maxFeePerGas : byGrowth
    const replacement = mayBump && sends.accepted(entry.payloadId, last.txHash) ? await broadcaster.signReplacement(last, ceiling) : undefined
    if (!replacement) {
      last.sentAt = new Date()
      sends.queue([{ payloadId: entry.payloadId, tx: last }])
      return
    }
    await recordTransactions(db.pool, relayer, [{ payloadId: entry.payloadId, tx: replacement }])
    entry.transactions.push({ ...replacement, sentAt: new Date() })
    log.info('replacing a stuck transaction', { payloadId: entry.payloadId, nonce: entry.nonce, txHash: replacement.txHash, maxFeePerGas: replacement.maxFeePerGas })
    sends.queue([{ payloadId: entry.payloadId, tx: replacement }])
  }

  async function takeWork(): Promise<boolean> {
    const rows = await waitingSubmissions(db.pool, settings.batchSize)
    if (rows.length === 0) return false
    const checked = await Promise.all(
      rows.map(async (row) => {
        const intent = intentOf(row)
        return { row, intent, verdict: await validateSubmission(validation, intent) }
      }),
    )
    const valid: { row: SubmissionRow; intent: PaymentIntent; data: Hex }[] = []
    for (const { row, intent, verdict } of checked) {
      if (verdict.ok) valid.push({ row, intent, data: verdict.data })
      else await refuseOrPutBack(row, verdict)
    }
    // A gateway may have evicted a waiting future submission meanwhile: only those this step moved to
    // PENDING (or found there) are signed.
    const moved = new Set(await markPending(db.pool, valid.filter((r) => r.row.status === 'ENQUEUING').map((r) => r.row.payloadId)))
    const ready = valid.filter((r) => r.row.status === 'PENDING' || moved.has(r.row.payloadId))
    if (ready.length === 0) return true

    const gas = await Promise.all(ready.map((r) => gasFor(r.intent, r.data)))
    // Nonces are taken in queue order, before any await, so recording and sending keep that order.
    const nonces = ready.map(() => broadcaster.takeNonce())
    const signed = await Promise.all(ready.map((r, i) => broadcaster.sign({ to: settings.settlementContract, data: r.data, gas: gas[i]!, nonce: nonces[i]! })))
    try {
      await db.transaction((client) => recordTransactions(client, relayer, signed.map((tx, i) => ({ payloadId: ready[i]!.row.payloadId, tx }))))
    } catch (error) {
      broadcaster.returnNonces(signed[0]!.nonce)
      throw error
    }
    for (const [i, tx] of signed.entries()) {
      inFlight.set(ready[i]!.row.payloadId, { payloadId: ready[i]!.row.payloadId, nonce: tx.nonce, transactions: [{ ...tx, sentAt: new Date() }] })
    }
    sends.queue(signed.map((tx, i) => ({ payloadId: ready[i]!.row.payloadId, tx })))
    log.debug('recorded and queued for sending', { count: signed.length, firstNonce: signed[0]!.nonce })
    return true
  }

  /** A refused submission fails; an undecidable one waits, twice as long each time, until it has waited too often. */
  async function refuseOrPutBack(row: SubmissionRow, verdict: FailedVerdict): Promise<void> {
    if (!verdict.defer) return void (await markFailed(db.pool, row.payloadId, verdict.category, verdict.reason))
    // The count restarts whenever the owner's token nonce has moved: a payment waiting behind others
    // that go through is making progress, a permit nobody will ever reach is not.
    const waits = verdict.tokenNonce?.toString() === (row.deferredAtNonce ?? undefined) ? row.deferCount : 0
    if (waits >= settings.maxDeferrals) await markFailed(db.pool, row.payloadId, verdict.category, `${verdict.reason}, still after ${waits} waits`)
    else await deferSubmission(db.pool, row.payloadId, { delayMs: deferralWait(settings, waits), deferCount: waits + 1, atNonce: verdict.tokenNonce })
  }

  async function gasFor(intent: PaymentIntent, data: Hex): Promise<bigint> {
    if (intent.kind === 'PAYMENT') return PAYMENT_GAS
    const estimate = await publicClient.estimateGas({ account: relayer, to: settings.settlementContract, data })
    return estimate + estimate / ACQUIRING_GAS_HEADROOM
  }
}

/** The wait after the `deferrals`-th deferral: doubling from `deferMs`, at most `deferMaxMs`. */
type FailedVerdict = Extract<Verdict, { ok: false }>

function deferralWait(settings: SubmitterSettings, deferrals: number): number {
  return Math.min(settings.deferMs * 2 ** Math.min(deferrals, 30), settings.deferMaxMs)
}

function intentOf(row: SubmissionRow): PaymentIntent {
  return row.kind === 'PAYMENT' ? intentOfPayment(row.request as TransferRequest) : intentOfAcquiring(row.request as BuyAcquiringPackRequest)
}
