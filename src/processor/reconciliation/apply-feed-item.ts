/**
 * What one item of the explorer's feed does to charges, inside the reconciler's transaction. A settlement
 * whose order reference names no charge may be a refund's (`apply-refund-item.ts`); naming neither, it is
 * not ours and changes nothing. One that names a charge is first read back
 * from the chain (`ctx.onChain`): the chain's token, recipient, value and block time are what count, and
 * one the chain does not hold changes nothing. It is recorded on the charge whatever it is
 * (charge_payments) and then:
 * - pays a charge awaiting payment when token, recipient and `amount >= charge amount` agree (confirming,
 *   and settled at once with CONFIRMATION_BLOCKS 0); a disagreement is recorded and settles nothing;
 * - is reported as `charge.late_payment` on a charge expired, canceled or already paid;
 * - is the same transaction as the charge's paying settlement seen at a new position (a reorg re-mined
 *   it): the charge follows it, with no event.
 * A removal — once the chain shows it (`verify-removals.ts`): a REMOVED from the feed is only a report —
 * marks the recorded settlement removed; when it was the one paying the charge, the charge goes back to
 * awaiting payment (`charge.reverted`), and a second payment recorded meanwhile, if any, pays it instead.
 */
import { insertChargePayment, markChargePaymentRemoved, nextPayingPayment, setPaymentOutcome, type ChargePaymentRow, type Mismatch } from '../db/index.js'
import { lockCharge, lockChargeByOrderReference, moveChargeSettlement, type ChargeRow, type SettlementPosition } from '../db/index.js'
import type { Sql } from '../db/index.js'
import { changeCharge, reportLatePayment } from '../charges/index.js'
import { applyRefundRemoval, applyRefundSettlement } from './apply-refund-item.js'
import type { ChainSettlement, ReportedSettlement } from './chain-settlement.js'
import type { PresenceCheck } from './settlement-presence.js'

export interface ReconcileContext {
  confirmationBlocks: number
  /** Blocks a settlement taken away stays watched for its return (`verify-removals.ts`). */
  restoreWatchBlocks: number
  widgetBaseUrl: string
  /** The chain head at the last poll, if there was one. */
  head(): number | undefined
  /** The reported settlement as the chain has it; undefined when the chain has no such payment. */
  onChain(event: ReportedSettlement): Promise<ChainSettlement | undefined>
  /** Whether the chain still holds a recorded settlement (`settlement-presence.ts`). */
  presence: PresenceCheck
}

export async function applySettlement(sql: Sql, reported: ReportedSettlement, ctx: ReconcileContext): Promise<void> {
  const charge = await lockChargeByOrderReference(sql, reported.orderReference)
  if (!charge) return applyRefundSettlement(sql, reported, ctx)
  const event = await ctx.onChain(reported)
  if (!event) return
  const position: SettlementPosition = { txHash: event.txHash, blockNumber: event.blockNumber, logIndex: event.logIndex }
  const mismatch = mismatchOf({ ...charge, recipient: charge.beneficiary }, event)
  const paying = charge.settlement
  const moved = paying?.txHash === event.txHash && !samePosition(paying, position)
  // The old position goes first: the same transaction may keep its log index in another block.
  if (moved) await markChargePaymentRemoved(sql, paying.txHash, paying.logIndex)
  const outcome = moved || charge.status === 'awaiting-payment' ? (mismatch.length > 0 ? 'mismatched' : 'matched') : charge.status === 'confirming' || charge.status === 'settled' ? 'second' : 'late'
  const payment = await insertChargePayment(sql, {
    chargeId: charge.id,
    ...position,
    blockTimestamp: new Date(event.timestamp * 1000),
    token: event.token,
    payer: event.payer,
    recipient: event.recipient,
    amount: event.amount,
    fee: event.fee,
    acquirerId: event.acquirerId,
    outcome,
    mismatch,
    beforeDeadline: event.timestamp * 1000 <= charge.deadline.getTime(),
  })
  if (!payment) return
  if (moved) await moveChargeSettlement(sql, charge.id, position)
  else if (outcome === 'matched') await pay(sql, charge, position, ctx)
  else if (outcome === 'late' || outcome === 'second') await reportLatePayment(sql, charge, payment, ctx.widgetBaseUrl)
}

/** Applied once the chain shows the settlement gone (`settlement-presence.ts`), never on the explorer's word alone. */
export async function applyRemoval(sql: Sql, event: Pick<SettlementPosition, 'txHash' | 'logIndex'>, ctx: ReconcileContext): Promise<void> {
  const removed = await markChargePaymentRemoved(sql, event.txHash, event.logIndex, ctx.head())
  if (!removed) return applyRefundRemoval(sql, event, ctx)
  const charge = await lockCharge(sql, removed.chargeId)
  if (!charge || !isPaidBy(charge, removed)) return
  const reverted = await changeCharge(sql, charge, { to: 'awaiting-payment' }, ctx.widgetBaseUrl)
  const next = await nextPayingPayment(sql, charge.id)
  if (!next) return
  await setPaymentOutcome(sql, next.id, 'matched')
  await pay(sql, reverted, next, ctx)
}

/** awaiting-payment → confirming, and on to settled when no confirmations are asked for. */
async function pay(sql: Sql, charge: ChargeRow, position: SettlementPosition, ctx: ReconcileContext): Promise<void> {
  const settlement = { txHash: position.txHash, blockNumber: position.blockNumber, logIndex: position.logIndex }
  const confirmations = confirmationsOf(settlement, ctx)
  const confirming = await changeCharge(sql, charge, { to: 'confirming', settlement, confirmations }, ctx.widgetBaseUrl)
  if (ctx.confirmationBlocks === 0) await changeCharge(sql, confirming, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
}

/** How a settlement disagrees with what it should pay (a charge's beneficiary, a refund's recipient). */
export function mismatchOf(expected: { token: string; recipient: string; amount: string }, event: Pick<ChainSettlement, 'token' | 'recipient' | 'amount'>): Mismatch[] {
  const mismatch: Mismatch[] = []
  if (event.token.toLowerCase() !== expected.token) mismatch.push('wrong-token')
  if (event.recipient.toLowerCase() !== expected.recipient) mismatch.push('wrong-recipient')
  if (BigInt(event.amount) < BigInt(expected.amount)) mismatch.push('underpaid')
  return mismatch
}

function isPaidBy(charge: ChargeRow, payment: ChargePaymentRow): boolean {
  return charge.settlement !== null && samePosition(charge.settlement, payment)
}

/** The same settlement: transaction, block and log index. */
export const samePosition = (a: SettlementPosition, b: SettlementPosition) => a.txHash === b.txHash && a.blockNumber === b.blockNumber && a.logIndex === b.logIndex

/** Blocks on top of the settlement's at the last head seen (never negative: the head may lag the explorer). */
export function confirmationsOf(position: SettlementPosition, ctx: Pick<ReconcileContext, 'head'>): number {
  const head = ctx.head()
  return head === undefined ? 0 : Math.max(0, head - position.blockNumber)
}
