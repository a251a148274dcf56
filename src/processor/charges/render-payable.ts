/**
 * The charge, refund and payment JSON of the merchant API (PROCESSOR.md §4, issue 23), also the `data`
 * of webhook events. A payable's JSON is its row without the listing order and the merchant, with its
 * payment page (`widgetUrl`) and, only in the answer that issued it, the page's `ephemeralToken`. Times
 * are ISO 8601 strings; amounts decimal strings of integers in the token's smallest unit.
 */
import type { ChargePaymentRow, ChargeRow, RefundRow } from '../db/index.js'
import type { PayableRow } from './payable-kind.js'

export type PayableJson<Row> = Omit<Row, 'seq' | 'merchantId' | 'deadline' | 'createdAt'> & {
  deadline: string
  widgetUrl: string
  /** Only in the answer that issued it (creation, or an idempotent replay); null when reading. */
  ephemeralToken: string | null
  createdAt: string
}

export type ChargeJson = PayableJson<ChargeRow>
export type RefundJson = PayableJson<RefundRow>

export interface PaymentJson extends Omit<ChargePaymentRow, 'id' | 'payableId' | 'blockTimestamp' | 'seenAt' | 'removedAt'> {
  /** The block's, in Unix seconds. */
  timestamp: number
  /** A reorg took it back. */
  removed: boolean
}

/** The payment pages: a charge's at `/s/`, a refund's (paid by the merchant's wallet) at `/r/`. */
export const widgetUrlOf = (widgetBaseUrl: string, chargeId: string) => `${widgetBaseUrl}/s/${chargeId}`
export const refundWidgetUrlOf = (widgetBaseUrl: string, refundId: string) => `${widgetBaseUrl}/r/${refundId}`

// The keys keep the order merchants have always seen: the row's own fields, then the payment page's, then the settlement.
function renderPayable<Row extends { seq: string; merchantId: string; deadline: Date; createdAt: Date; settlement: PayableRow['settlement'] }>(row: Row, widgetUrl: string, ephemeralToken: string | null) {
  const { seq: _seq, merchantId: _merchantId, deadline, createdAt, settlement, ...rest } = row
  return { ...rest, deadline: deadline.toISOString(), widgetUrl, ephemeralToken, createdAt: createdAt.toISOString(), settlement }
}

export const renderCharge = ({ paymentLinkId, ...row }: ChargeRow, widgetBaseUrl: string, ephemeralToken: string | null = null): ChargeJson => ({
  ...renderPayable(row, widgetUrlOf(widgetBaseUrl, row.id), ephemeralToken),
  paymentLinkId,
})

export const renderRefund = (row: RefundRow, widgetBaseUrl: string, ephemeralToken: string | null = null): RefundJson =>
  renderPayable(row, refundWidgetUrlOf(widgetBaseUrl, row.id), ephemeralToken)

export function renderPayment({ id: _id, payableId: _payableId, blockTimestamp, seenAt: _seenAt, removedAt, ...payment }: ChargePaymentRow): PaymentJson {
  return { ...payment, timestamp: Math.floor(blockTimestamp.getTime() / 1000), removed: removedAt !== null }
}
