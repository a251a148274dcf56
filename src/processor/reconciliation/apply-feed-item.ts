/**
 * What one item of the explorer's feed does to payables — charges and refunds alike (`payable-kinds.ts`)
 * — inside the reconciler's transaction. A settlement whose order reference names no charge or refund is
 * not ours and changes nothing. One that names one is first read back from the chain (`ctx.onChain`): the
 * chain's token, recipient, value and block time are what count, and one the chain does not hold changes
 * nothing. It is recorded on the payable whatever it is (charge_payments, refund_payments) and then:
 * - pays a payable awaiting payment when token, recipient (a charge's beneficiary, a refund's recipient)
 *   and `amount >=` its amount agree (confirming, and settled at once with CONFIRMATION_BLOCKS 0); a
 *   disagreement is recorded and settles nothing;
 * - on a payable expired, canceled or already paid, is recorded as late or second and moves nothing (a
 *   payable never counts twice); a charge reports it as `charge.late_payment`;
 * - is the same transaction as the payable's paying settlement seen at a new position (a reorg re-mined
 *   it): the payable follows it, with no event.
 * A removal — once the chain shows it (`verify-removals.ts`): a REMOVED from the feed is only a report —
 * marks the recorded settlement removed; when it was the one paying the payable, the payable goes back to
 * awaiting payment (`charge.reverted`, `refund.reverted`; a settled refund leaves its charge's
 * `amountRefunded`), and a second payment recorded meanwhile, if any, pays it instead.
 */
import type { Mismatch, SettlementPosition, Sql } from '../db/index.js'
import { changePayable } from '../charges/index.js'
import type { ChainSettlement, ReportedSettlement } from './chain-settlement.js'
import { reconcilableKinds, type ReconcilableKind, type ReconcilableRow } from './payable-kinds.js'
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
  for (const kind of reconcilableKinds) {
    const row = await kind.payable.queries.lockByOrderReference(sql, reported.orderReference)
    if (row) return applyTo(sql, kind, row, reported, ctx)
  }
}

async function applyTo(sql: Sql, kind: ReconcilableKind, row: ReconcilableRow, reported: ReportedSettlement, ctx: ReconcileContext): Promise<void> {
  const event = await ctx.onChain(reported)
  if (!event) return
  const position: SettlementPosition = { txHash: event.txHash, blockNumber: event.blockNumber, logIndex: event.logIndex }
  const mismatch = mismatchOf({ token: row.token, recipient: kind.recipientOf(row), amount: row.amount }, event)
  const paying = row.settlement
  const moved = paying?.txHash === event.txHash && !samePosition(paying, position)
  // The old position goes first: the same transaction may keep its log index in another block.
  if (moved) await kind.payments.markRemoved(sql, paying.txHash, paying.logIndex)
  const awaiting = row.status === kind.payable.awaiting
  const outcome = moved || awaiting ? (mismatch.length > 0 ? 'mismatched' : 'matched') : row.status === 'confirming' || row.status === 'settled' ? 'second' : 'late'
  const payment = await kind.payments.insert(sql, {
    payableId: row.id,
    ...position,
    token: event.token,
    payer: event.payer,
    recipient: event.recipient,
    amount: event.amount,
    fee: event.fee,
    outcome,
    mismatch,
    ...kind.factsOf(row, event),
  })
  if (!payment) return
  if (moved) await kind.payable.queries.moveSettlement(sql, row.id, position)
  else if (outcome === 'matched') await pay(sql, kind, row, position, ctx)
  else if (outcome === 'late' || outcome === 'second') await kind.reportLate?.(sql, row, payment, ctx.widgetBaseUrl)
}

/** Applied once the chain shows the settlement gone (`settlement-presence.ts`), never on the explorer's word alone. */
export async function applyRemoval(sql: Sql, event: Pick<SettlementPosition, 'txHash' | 'logIndex'>, ctx: ReconcileContext): Promise<void> {
  for (const kind of reconcilableKinds) {
    const removed = await kind.payments.markRemoved(sql, event.txHash, event.logIndex, ctx.head())
    if (!removed) continue
    const row = await kind.payable.queries.lock(sql, removed.payableId)
    if (!row?.settlement || !samePosition(row.settlement, removed)) return
    const reverted = await changePayable(sql, kind.payable, row, { to: kind.payable.awaiting }, ctx.widgetBaseUrl)
    const next = await kind.payments.nextPaying(sql, row.id)
    if (!next) return
    await kind.payments.setOutcome(sql, next.id, 'matched')
    return pay(sql, kind, reverted, next, ctx)
  }
}

/** Awaiting payment → confirming, and on to settled when no confirmations are asked for. */
async function pay(sql: Sql, kind: ReconcilableKind, row: ReconcilableRow, position: SettlementPosition, ctx: ReconcileContext): Promise<void> {
  const settlement = { txHash: position.txHash, blockNumber: position.blockNumber, logIndex: position.logIndex }
  const confirmations = confirmationsOf(settlement, ctx)
  const confirming = await changePayable(sql, kind.payable, row, { to: 'confirming', settlement, confirmations }, ctx.widgetBaseUrl)
  if (ctx.confirmationBlocks === 0) await changePayable(sql, kind.payable, confirming, { to: 'settled', confirmations }, ctx.widgetBaseUrl)
}

/** How a settlement disagrees with what it should pay. */
export function mismatchOf(expected: { token: string; recipient: string; amount: string }, event: Pick<ChainSettlement, 'token' | 'recipient' | 'amount'>): Mismatch[] {
  const mismatch: Mismatch[] = []
  if (event.token.toLowerCase() !== expected.token) mismatch.push('wrong-token')
  if (event.recipient.toLowerCase() !== expected.recipient) mismatch.push('wrong-recipient')
  if (BigInt(event.amount) < BigInt(expected.amount)) mismatch.push('underpaid')
  return mismatch
}

/** The same settlement: transaction, block and log index. */
export const samePosition = (a: SettlementPosition, b: SettlementPosition) => a.txHash === b.txHash && a.blockNumber === b.blockNumber && a.logIndex === b.logIndex

/** Blocks on top of the settlement's at the last head seen (never negative: the head may lag the explorer). */
export function confirmationsOf(position: SettlementPosition, ctx: Pick<ReconcileContext, 'head'>): number {
  const head = ctx.head()
  return head === undefined ? 0 : Math.max(0, head - position.blockNumber)
}
