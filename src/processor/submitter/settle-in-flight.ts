/**
 * The in-flight half of a step: submissions whose nonce the chain has consumed get their outcome from the
 * receipts; the others, unmined past the timeout, are unstuck — with a higher fee only when the node
 * accepted the transaction it replaces, the guard allows spending and the fee ceiling leaves room;
 * otherwise the same bytes go again (the node may have dropped or never had them) and the timer restarts.
 */
import { recordTransactions, type InFlight } from '../db/index.js'
import type { SubmissionLoopParts } from './recover-submission-loop.js'

/** `mayBump`: the relayer guard allows spending. */
export async function settleInFlight(parts: SubmissionLoopParts, mayBump: boolean): Promise<void> {
  const { inFlight, receipts, sends, publicClient, relayer, settings } = parts
  if (inFlight.size === 0 && !receipts.watching()) return
  const consumed = await publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' })
  await receipts.settle(inFlight, consumed)
  sends.keepOnly((payloadId) => inFlight.has(payloadId))
  for (const entry of inFlight.values()) {
    if (entry.nonce >= consumed && Date.now() - entry.transactions.at(-1)!.sentAt.getTime() > settings.stuckTimeoutMs) await unstick(parts, entry, mayBump)
  }
}

async function unstick({ settings, sends, broadcaster, db, relayer, log }: SubmissionLoopParts, entry: InFlight, mayBump: boolean): Promise<void> {
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
