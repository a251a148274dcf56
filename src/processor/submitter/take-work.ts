/**
 * The new-work half of a step: waiting submissions are validated, the valid ones signed with fresh nonces
 * and recorded in one transaction, then queued for sending; refused ones fail and undecidable ones are
 * put back (put-back.ts). Returns whether there was work, so the loop goes on at once instead of sleeping.
 */
import type { Hex } from 'viem'
import { intentOfAcquiring, intentOfPayment, type BuyAcquiringPackRequest, type PaymentIntent, type TransferRequest } from '../../wire/index.js'
import { PAYMENT_GAS } from '../../chain/index.js'
import { markPending, recordTransactions, waitingSubmissions, type SubmissionRow } from '../db/index.js'
import { refuseOrPutBack } from './put-back.js'
import type { SubmissionLoopParts } from './recover-submission-loop.js'
import { validateSubmission } from './validate-submission.js'

/** buyAcquiringPack is rare and its gas varies with the acquirer table: estimated, with headroom. */
const ACQUIRING_GAS_HEADROOM = 5n

export async function takeWork(parts: SubmissionLoopParts): Promise<boolean> {
  const { settings, db, relayer, broadcaster, inFlight, sends, log } = parts
  const rows = await waitingSubmissions(db.pool, settings.batchSize)
  if (rows.length === 0) return false
  const checked = await Promise.all(
    rows.map(async (row) => {
      const intent = intentOf(row)
      return { row, intent, verdict: await validateSubmission(parts.validation, intent) }
    }),
  )
  const valid: { row: SubmissionRow; intent: PaymentIntent; data: Hex }[] = []
  for (const { row, intent, verdict } of checked) {
    if (verdict.ok) valid.push({ row, intent, data: verdict.data })
    else await refuseOrPutBack(parts, row, verdict)
  }
  // A gateway may have evicted a waiting future submission meanwhile: only those this step moved to
  // PENDING (or found there) are signed.
  const moved = new Set(await markPending(db.pool, valid.filter((r) => r.row.status === 'ENQUEUING').map((r) => r.row.payloadId)))
  const ready = valid.filter((r) => r.row.status === 'PENDING' || moved.has(r.row.payloadId))
  if (ready.length === 0) return true

  const gas = await Promise.all(ready.map((r) => gasFor(parts, r.intent, r.data)))
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

async function gasFor({ publicClient, relayer, settings }: SubmissionLoopParts, intent: PaymentIntent, data: Hex): Promise<bigint> {
  if (intent.kind === 'PAYMENT') return PAYMENT_GAS
  const estimate = await publicClient.estimateGas({ account: relayer, to: settings.settlementContract, data })
  return estimate + estimate / ACQUIRING_GAS_HEADROOM
}

function intentOf(row: SubmissionRow): PaymentIntent {
  return row.kind === 'PAYMENT' ? intentOfPayment(row.request as TransferRequest) : intentOfAcquiring(row.request as BuyAcquiringPackRequest)
}
