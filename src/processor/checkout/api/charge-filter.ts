/**
 * The filters of `GET /api/v1/charges`, `GET /api/v1/refunds` and the CSV reports, from their query parameters (whose shapes the
 * route schemas have checked): a date is UTC midnight, a time needs its offset; `from` is inclusive, `to`
 * exclusive, and a calendar date that does not exist (2026-02-30) is refused rather than rolled over.
 */
import type { Hex } from 'viem'
import { badParam } from '../../../platform/http/index.js'
import type { ChargeFilter, ChargeStatus, RefundFilter, RefundStatus } from '../../db/index.js'

export interface ChargeFilterQuery {
  status?: ChargeStatus
  from?: string
  to?: string
  beneficiary?: string
  orderId?: string
  paymentLinkId?: string
}

export function chargeFilterOf(query: ChargeFilterQuery): ChargeFilter {
  const from = query.from === undefined ? undefined : instantOf('from', query.from)
  const to = query.to === undefined ? undefined : instantOf('to', query.to)
  if (from && to && from >= to) throw badParam('to', `to (${query.to}) must be after from (${query.from})`)
  return {
    status: query.status,
    from,
    to,
    beneficiary: query.beneficiary?.toLowerCase() as Hex | undefined,
    orderId: query.orderId,
    paymentLinkId: query.paymentLinkId,
  }
}

/** The refunds' filters (listing and report): the refund's status and creation time, and its charge's beneficiary (who pays the refund), id and order id. */
export interface RefundFilterQuery {
  refundStatus?: RefundStatus
  from?: string
  to?: string
  beneficiary?: string
  chargeId?: string
  orderId?: string
}

export function refundFilterOf(query: RefundFilterQuery): RefundFilter {
  const { from, to, beneficiary, orderId } = chargeFilterOf({ from: query.from, to: query.to, beneficiary: query.beneficiary, orderId: query.orderId })
  return { status: query.refundStatus, from, to, payer: beneficiary, chargeId: query.chargeId, orderId }
}

/** An instant named by a date or an RFC 3339 date-time, checked against the calendar. */
export function instantOf(param: string, text: string): Date {
  const [date = '', time] = text.split('T')
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const calendar = new Date(Date.UTC(year, month - 1, day))
  const hours = time === undefined ? [] : time.slice(0, 8).split(':').map(Number)
  const instant = new Date(time === undefined ? `${date}T00:00:00Z` : text)
  const exists = calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day
  if (!exists || Number.isNaN(instant.getTime()) || hours[0]! > 23 || hours[1]! > 59 || hours[2]! > 59) throw badParam(param, `${param} "${text}" is not a real date and time`)
  return instant
}
