/**
 * Whether the chain still holds a recorded settlement, asked so that no single answer takes a payment
 * away (issue 38): a node that lags, errs, times out or hides a receipt changes nothing. Evidence that the
 * chain moved is positive only — the transaction's receipt shows it mined without paying, or there is no
 * receipt and the block at the settlement's height was built without the transaction — and it counts
 * as "gone" only when seen again `removedAfterBlocks` blocks later with no sight of the settlement
 * between, as `follow-receipts.ts` reasons for the submitter's DROPPED. A node that has no block at that
 * height yet, or whose block holds the transaction while its receipt is missing, is behind: unsure.
 */
import type { Hex, PublicClient } from 'viem'
import type { SettlementPosition } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { findSettlementLog } from './chain-settlement.js'

export type Presence =
  /** The chain pays the order reference in this transaction, at `at` (another position when a reorg re-mined it). */
  | { kind: 'held'; at: SettlementPosition }
  | { kind: 'gone' }
  | { kind: 'unsure' }

export type PresenceCheck = (position: SettlementPosition, orderReference: Hex) => Promise<Presence>

export interface PresenceCheckParams {
  publicClient: PublicClient
  contract: Hex
  removedAfterBlocks: number
  /** The chain head at the last poll. */
  head(): number | undefined
  log: Logger
}

type Sighting = { kind: 'held'; at: SettlementPosition } | { kind: 'evidence'; why: string } | { kind: 'unsure'; why: string }

export function checkPresence({ publicClient, contract, removedAfterBlocks, head, log }: PresenceCheckParams): PresenceCheck {
  /** Settlement → the head at which evidence of its removal was first seen (forgotten once it is seen held, or gone). */
  const evidenceSince = new Map<string, number>()

  async function sight({ txHash, blockNumber }: SettlementPosition, orderReference: Hex): Promise<Sighting> {
    try {
      const found = await findSettlementLog(publicClient, contract, txHash, orderReference)
      if (found) return { kind: 'held', at: { txHash, blockNumber: found.blockNumber, logIndex: found.logIndex } }
      if (found === undefined) return { kind: 'evidence', why: 'the transaction is mined without paying' }
      const block = await publicClient.getBlock({ blockNumber: BigInt(blockNumber) })
      if (block.transactions.some((hash) => hash.toLowerCase() === txHash.toLowerCase())) return { kind: 'unsure', why: 'its block holds the transaction but the node has no receipt' }
      return { kind: 'evidence', why: `block ${blockNumber} was built without the transaction` }
    } catch (error) {
      return { kind: 'unsure', why: (error as Error).message.split('\n')[0]! }
    }
  }

  return async (position, orderReference) => {
    const key = `${position.txHash}:${position.logIndex}`
    const seen = await sight(position, orderReference)
    if (seen.kind === 'held') {
      evidenceSince.delete(key)
      return seen
    }
    const now = head()
    if (seen.kind === 'unsure' || now === undefined) {
      log.debug('a recorded settlement could not be checked on the node; asked again next poll', { txHash: position.txHash, why: seen.why })
      return { kind: 'unsure' }
    }
    const since = evidenceSince.get(key) ?? now
    evidenceSince.set(key, since)
    if (now - since < removedAfterBlocks) return { kind: 'unsure' }
    evidenceSince.delete(key)
    log.info('a recorded settlement is gone from the chain', { txHash: position.txHash, blockNumber: position.blockNumber, why: seen.why, since })
    return { kind: 'gone' }
  }
}
