/**
 * A payment link as the merchant API renders it, and whether it takes a new charge now. `uses` counts the
 * link's paid charges and those awaiting payment within their hold (issue 38 item 6): an unpaid charge
 * gives its use back when its hold ends (or it expires or is canceled), so `maxUses` bounds what the link
 * sells while payers pay within the hold, and pressing Pay without paying fills it for the hold only.
 */
import type { PaymentLinkRow } from '../../db/index.js'

export const paymentLinkStatuses = ['active', 'used-up', 'expired', 'deactivated'] as const
export type PaymentLinkStatus = (typeof paymentLinkStatuses)[number]

export interface PaymentLinkJson extends Pick<PaymentLinkRow, 'id' | 'amount' | 'token' | 'currency' | 'beneficiary' | 'description' | 'maxUses' | 'uses' | 'chargesCreated'> {
  /** The public page: `<widget>/l/<id>`. */
  url: string
  status: PaymentLinkStatus
  expiresAt: string | null
  createdAt: string
  deactivatedAt: string | null
}

export const paymentLinkUrlOf = (widgetBaseUrl: string, id: string) => `${widgetBaseUrl}/l/${id}`

/** `used-up` may turn `active` again when a hold ends or one of its charges expires or is canceled; the others are final. */
export function paymentLinkStatus(link: PaymentLinkRow, now = new Date()): PaymentLinkStatus {
  if (link.deactivatedAt) return 'deactivated'
  if (link.expiresAt && link.expiresAt <= now) return 'expired'
  if (link.maxUses !== null && link.uses >= link.maxUses) return 'used-up'
  return 'active'
}

export function renderPaymentLink(link: PaymentLinkRow, widgetBaseUrl: string): PaymentLinkJson {
  return {
    id: link.id,
    url: paymentLinkUrlOf(widgetBaseUrl, link.id),
    status: paymentLinkStatus(link),
    amount: link.amount,
    token: link.token,
    currency: link.currency,
    beneficiary: link.beneficiary,
    description: link.description,
    maxUses: link.maxUses,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    uses: link.uses,
    chargesCreated: link.chargesCreated,
    createdAt: link.createdAt.toISOString(),
    deactivatedAt: link.deactivatedAt?.toISOString() ?? null,
  }
}
