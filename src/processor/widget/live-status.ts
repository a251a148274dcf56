/**
 * What a payment page says about a payable's state — a charge's or a refund's — in one place for the
 * first render and the live updates (server-sent events): the state, the words shown for it, and the
 * paying transaction.
 */
import type { ChargeRow, ChargeStatus, RefundRow, RefundStatus } from '../db/index.js'

export interface LiveStatus<Status extends string = ChargeStatus> {
  status: Status
  label: string
  txHash: string | null
  confirmations: number | null
}

const chargeLabels: Record<ChargeStatus, string> = {
  'awaiting-payment': 'Waiting for payment',
  confirming: 'Payment received, confirming',
  settled: 'Paid',
  'partially-refunded': 'Paid (partly refunded)',
  refunded: 'Paid (refunded)',
  expired: 'Expired',
  canceled: 'Canceled',
}

const refundLabels: Record<RefundStatus, string> = {
  'awaiting-signature': 'Waiting for the merchant’s wallet',
  confirming: 'Refund sent, confirming',
  settled: 'Refunded',
  expired: 'Expired',
  canceled: 'Canceled',
}

const statusOf = <Status extends string>(row: { status: Status; settlement: ChargeRow['settlement'] }, labels: Record<Status, string>): LiveStatus<Status> => ({
  status: row.status,
  label: labels[row.status],
  txHash: row.settlement?.txHash ?? null,
  confirmations: row.settlement?.confirmations ?? null,
})

export const liveStatus = (charge: ChargeRow) => statusOf(charge, chargeLabels)
export const refundLiveStatus = (refund: RefundRow) => statusOf(refund, refundLabels)

/** No payment can be made any more: the page answers 410 Gone. */
export const isClosed = (status: ChargeStatus | RefundStatus) => status === 'expired' || status === 'canceled'
