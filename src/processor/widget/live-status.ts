/**
 * What a payment page says about a charge's state, in one place for the first render and the live
 * updates (server-sent events): the state, the words shown for it, and the paying transaction.
 */
import type { ChargeRow, ChargeStatus } from '../db/index.js'

export interface LiveStatus {
  status: ChargeStatus
  label: string
  txHash: string | null
  confirmations: number | null
}

const statusLabels: Record<ChargeStatus, string> = {
  'awaiting-payment': 'Waiting for payment',
  confirming: 'Payment received, confirming',
  settled: 'Paid',
  'partially-refunded': 'Paid (partly refunded)',
  refunded: 'Paid (refunded)',
  expired: 'Expired',
  canceled: 'Canceled',
}

export const liveStatus = (charge: ChargeRow): LiveStatus => ({
  status: charge.status,
  label: statusLabels[charge.status],
  txHash: charge.settlement?.txHash ?? null,
  confirmations: charge.settlement?.confirmations ?? null,
})

/** No payment can be made any more: the page answers 410 Gone. */
export const isClosed = (status: ChargeStatus) => status === 'expired' || status === 'canceled'
