/**
 * Outcomes of in-flight submissions whose relayer nonce the chain has consumed, from their receipts.
 * Only the node's answer "no such receipt" counts as absent: a failed read (a timeout, a rate limit, a
 * node restarting) says nothing and is asked again next step. A nonce can be reported consumed before its
 * receipt can be read (a node updates its state before it stores the block; load-balanced nodes lag each
 * other), so DROPPED — the nonce taken by a transaction the submitter did not sign — needs every receipt
 * absent while the chain moves `droppedAfterBlocks` blocks on. Even then the verdict is the only failure
 * the chain can take back: a DROPPED submission stays watched for `droppedWatchBlocks` more blocks, and a
 * receipt that shows up turns it into SUCCESS (or REVERTED). The watch's last block is stored with the
 * verdict, so the next active submitter (after a restart or a takeover) resumes it; when it ends without
 * a receipt, the verdict is announced again as final.
 */
import { TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem'
import type { DroppedWatch, InFlight, Sql } from '../db/index.js'
import { endDroppedWatch, markDropped, markFailed, markSucceeded } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'

/** A lagging node can show the receipt without a new block, so the re-check goes by time, not blocks. */
const DROPPED_RECHECK_MS = 1_000

type Outcome = { status: 'success' | 'reverted'; txHash: Hex } | { status: 'absent' } | { status: 'unknown'; error: string }

export interface ReceiptFollower {
  /** Settles the entries of `inFlight` whose nonce is below `consumed` (removing them), and re-checks DROPPED ones. */
  settle(inFlight: Map<string, InFlight>, consumed: number): Promise<void>
  /** Whether DROPPED submissions are still watched (a step must run even with nothing in flight). */
  watching(): boolean
  /** Takes up the watches an earlier active submitter left (read from the database at start). */
  resume(watches: DroppedWatch[]): void
}

export interface FollowReceiptsParams {
  publicClient: PublicClient
  sql: Sql
  droppedAfterBlocks: number
  droppedWatchBlocks: number
  log: Logger
}

export function followReceipts({ publicClient, sql, droppedAfterBlocks, droppedWatchBlocks, log }: FollowReceiptsParams): ReceiptFollower {
  /** Payload id → the block at which all its receipts were first seen absent. */
  const absentSince = new Map<string, bigint>()
  /** Payload id → the DROPPED entry and the last block of its watch. */
  const dropped = new Map<string, DroppedWatch>()
  let droppedCheckedAt = 0

  const head = () => publicClient.getBlockNumber({ cacheTime: 0 })

  async function outcomeOf(entry: InFlight): Promise<Outcome> {
    for (const tx of [...entry.transactions].reverse()) {
      try {
        const receipt = await publicClient.getTransactionReceipt({ hash: tx.txHash })
        return { status: receipt.status, txHash: tx.txHash }
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) return { status: 'unknown', error: (error as Error).message.split('\n')[0]! }
      }
    }
    return { status: 'absent' }
  }

  /** Records what the receipts say; true when the submission has its final outcome. */
  async function record(payloadId: string, outcome: Outcome): Promise<boolean> {
    if (outcome.status === 'success') await markSucceeded(sql, [{ payloadId, txHash: outcome.txHash }])
    else if (outcome.status === 'reverted') await markFailed(sql, payloadId, 'REVERTED', 'the transaction was mined but reverted', outcome.txHash)
    else return false
    return true
  }

  async function settleDue(inFlight: Map<string, InFlight>, consumed: number): Promise<void> {
    const due = [...inFlight.values()].filter((entry) => entry.nonce < consumed)
    const outcomes = await Promise.all(due.map(async (entry) => ({ entry, outcome: await outcomeOf(entry) })))
    const mined = outcomes.flatMap(({ entry, outcome }) => (outcome.status === 'success' ? [{ payloadId: entry.payloadId, txHash: outcome.txHash }] : []))
    await markSucceeded(sql, mined)
    let now: bigint | undefined
    for (const { entry, outcome } of outcomes) {
      if (outcome.status === 'unknown') {
        log.debug('receipt unreadable; asking again', { payloadId: entry.payloadId, error: outcome.error })
        continue
      }
      if (outcome.status === 'reverted') await record(entry.payloadId, outcome)
      else if (outcome.status === 'absent') {
        now ??= await head()
        const since = absentSince.get(entry.payloadId) ?? now
        absentSince.set(entry.payloadId, since)
        if (now - since < BigInt(droppedAfterBlocks)) continue
        const watchUntil = now + BigInt(droppedWatchBlocks)
        await markDropped(sql, entry.payloadId, `${droppedReason(entry)} (no receipt ${droppedAfterBlocks} blocks later; watched until block ${watchUntil})`, watchUntil)
        dropped.set(entry.payloadId, { entry, watchUntil })
      }
      absentSince.delete(entry.payloadId)
      inFlight.delete(entry.payloadId)
    }
  }

  /** A receipt that appeared for a DROPPED submission corrects the verdict (looked for once a second). */
  async function recheckDropped(): Promise<void> {
    if (dropped.size === 0 || performance.now() - droppedCheckedAt < DROPPED_RECHECK_MS) return
    droppedCheckedAt = performance.now()
    const now = await head()
    for (const [payloadId, { entry, watchUntil }] of dropped) {
      const outcome = await outcomeOf(entry)
      if (await record(payloadId, outcome)) log.warn('a DROPPED submission was mined after all', { payloadId, outcome: outcome.status })
      else if (outcome.status === 'unknown' || now <= watchUntil) continue
      else await endDroppedWatch(sql, payloadId, `${droppedReason(entry)} (still no receipt at block ${now}: final)`)
      dropped.delete(payloadId)
    }
  }

  return {
    async settle(inFlight, consumed) {
      await settleDue(inFlight, consumed)
      await recheckDropped()
    },
    watching: () => dropped.size > 0,
    resume(watches) {
      for (const watch of watches) dropped.set(watch.entry.payloadId, watch)
      if (watches.length > 0) log.info('resumed watching DROPPED submissions', { count: watches.length })
    },
  }
}

const droppedReason = (entry: InFlight) => `relayer nonce ${entry.nonce} was used by a transaction the submitter did not sign`
