/**
 * Sending beside the submitter's steps: each batch of recorded transactions goes to the node as one
 * JSON-RPC batch in nonce order, after the previous batch was answered. It remembers which transaction
 * of each submission the node last accepted, because only an accepted transaction may be replaced with
 * a higher fee: one the node refused is sent again as it is (bumping a fee the node never saw only
 * spends more once it does).
 */
import type { Hex } from 'viem'
import type { Logger } from '../../platform/observability/index.js'
import type { Broadcaster, SignedTx } from './broadcaster.js'

export interface Outgoing {
  payloadId: string
  tx: Pick<SignedTx, 'txHash' | 'raw'>
}

export interface SendQueue {
  /** Sends after every batch queued before; `onAnswered` runs when the node has answered all of them. */
  queue(batch: Outgoing[]): void
  /** Whether the node accepted `txHash`, the submission's transaction. */
  accepted(payloadId: string, txHash: Hex): boolean
  /** Forgets submissions that are no longer in flight. */
  keepOnly(inFlight: (payloadId: string) => boolean): void
  /** Resolves when everything queued has been answered. */
  drained(): Promise<void>
}

export function createSendQueue(broadcaster: Broadcaster, onAnswered: () => void, log: Logger): SendQueue {
  let sending: Promise<unknown> = Promise.resolve()
  const acceptedTx = new Map<string, Hex>()
  const sendOne = ({ payloadId, tx }: Outgoing) =>
    broadcaster.send(tx.raw).then(
      () => void acceptedTx.set(payloadId, tx.txHash),
      (error) => log.warn('send failed; will send it again', { payloadId, txHash: tx.txHash, error }),
    )
  return {
    queue(batch) {
      // Answered sends are often mined already (automine): look for their receipts now, not a poll later.
      sending = sending.then(() => Promise.all(batch.map(sendOne))).then(onAnswered)
    },
    accepted: (payloadId, txHash) => acceptedTx.get(payloadId) === txHash,
    keepOnly(inFlight) {
      for (const payloadId of acceptedTx.keys()) if (!inFlight(payloadId)) acceptedTx.delete(payloadId)
    },
    drained: () => sending.then(() => undefined),
  }
}
