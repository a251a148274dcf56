/**
 * The refund JSON of the merchant API (issue 23), also the `data` of `refund.*` webhook events. Like a
 * charge it carries its payment page (`widgetUrl`, the merchant's wallet pays it there) and, only in the
 * answer that issued it, the page's `ephemeralToken`.
 */
import type { RefundRow } from '../db/index.js'

export interface RefundJson extends Omit<RefundRow, 'seq' | 'merchantId' | 'deadline' | 'createdAt'> {
  deadline: string
  widgetUrl: string
  ephemeralToken: string | null
  createdAt: string
}

export const refundWidgetUrlOf = (widgetBaseUrl: string, refundId: string) => `${widgetBaseUrl}/r/${refundId}`

export function renderRefund(row: RefundRow, widgetBaseUrl: string, ephemeralToken: string | null = null): RefundJson {
  return {
    id: row.id,
    chargeId: row.chargeId,
    orderId: row.orderId,
    status: row.status,
    amount: row.amount,
    reason: row.reason,
    token: row.token,
    currency: row.currency,
    payer: row.payer,
    recipient: row.recipient,
    orderReference: row.orderReference,
    acquirerId: row.acquirerId,
    fees: row.fees,
    totalToPay: row.totalToPay,
    deadline: row.deadline.toISOString(),
    widgetUrl: refundWidgetUrlOf(widgetBaseUrl, row.id),
    ephemeralToken,
    createdAt: row.createdAt.toISOString(),
    settlement: row.settlement,
  }
}
