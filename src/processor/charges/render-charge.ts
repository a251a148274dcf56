/**
 * The charge and payment JSON of the merchant API (PROCESSOR.md §4), also the `data` of webhook events.
 * Times are ISO 8601 strings; amounts decimal strings of integers in the token's smallest unit.
 */
import type { ChargePaymentRow } from '../db/index.js'
import type { ChargeRow } from '../db/index.js'

export interface ChargeJson extends Omit<ChargeRow, 'seq' | 'merchantId' | 'deadline' | 'createdAt'> {
  deadline: string
  widgetUrl: string
  /** Only in the answer that issued it (creation, or an idempotent replay); null when reading. */
  ephemeralToken: string | null
  createdAt: string
}

export interface PaymentJson extends Omit<ChargePaymentRow, 'id' | 'chargeId' | 'blockTimestamp' | 'seenAt' | 'removedAt'> {
  /** The block's, in Unix seconds. */
  timestamp: number
  /** A reorg took it back. */
  removed: boolean
}

export const widgetUrlOf = (widgetBaseUrl: string, chargeId: string) => `${widgetBaseUrl}/s/${chargeId}`

export function renderCharge(row: ChargeRow, widgetBaseUrl: string, ephemeralToken: string | null = null): ChargeJson {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    token: row.token,
    currency: row.currency,
    beneficiary: row.beneficiary,
    orderId: row.orderId,
    orderReference: row.orderReference,
    acquirerId: row.acquirerId,
    fees: row.fees,
    totalToPay: row.totalToPay,
    amountRefunded: row.amountRefunded,
    deadline: row.deadline.toISOString(),
    widgetUrl: widgetUrlOf(widgetBaseUrl, row.id),
    ephemeralToken,
    createdAt: row.createdAt.toISOString(),
    settlement: row.settlement,
    paymentLinkId: row.paymentLinkId,
  }
}

export function renderPayment({ id: _id, chargeId: _chargeId, blockTimestamp, seenAt: _seenAt, removedAt, ...payment }: ChargePaymentRow): PaymentJson {
  return { ...payment, timestamp: Math.floor(blockTimestamp.getTime() / 1000), removed: removedAt !== null }
}
