/**
 * A payer's charge from a payment link (issue 23), made when the payer presses the link page's "Pay"
 * button on the widget: priced now (fees are the contract's today, the token must still be supported),
 * then, with the link's row locked, checked again (not deactivated, not expired, fewer than `maxUses`
 * uses, fewer than `maxOpenCharges` charges awaiting payment) and stored as an ordinary charge with the
 * order id `<link id>.<n>`. Reconciliation and webhooks treat it like any other charge.
 */
import { ProblemError } from '../../../platform/http/index.js'
import { countPaymentLinkCharge, findMerchant, findPaymentLinkById, insertCharge, lockPaymentLink, type ChargeRow, type Database, type PaymentLinkRow } from '../../db/index.js'
import { newCharge, priceCharge } from './charge-pricing.js'
import type { ChargeTerms } from './charge-terms.js'
import { paymentLinkStatus, type PaymentLinkStatus } from './payment-link-json.js'

export interface LinkChargeSettings {
  chargeTtlSeconds: number
  /** Charges of one link awaiting payment at once: what a flood from many addresses can hold. */
  maxOpenCharges: number
}

export type LinkChargeOutcome =
  | { charge: ChargeRow }
  /** No charge: the link's status, or `busy` (too many of its charges await payment), or `unpriced` (the token or fee lookup fails now). */
  | { refused: Exclude<PaymentLinkStatus, 'active'> | 'busy' | 'unpriced'; link: PaymentLinkRow }

/** Undefined when there is no such link. */
export async function chargeFromPaymentLink(db: Database, terms: ChargeTerms, id: string, settings: LinkChargeSettings): Promise<LinkChargeOutcome | undefined> {
  const seen = await findPaymentLinkById(db.pool, id)
  if (!seen) return undefined
  const status = paymentLinkStatus(seen)
  if (status !== 'active') return { refused: status, link: seen }
  const merchant = await findMerchant(db.pool, seen.merchantId)
  const priced = await priceCharge(terms, { acquirerId: merchant?.acquirerId ?? null }, seen).catch((error: unknown) => {
    if (error instanceof ProblemError) return undefined
    throw error
  })
  if (!priced) return { refused: 'unpriced', link: seen }
  return db.transaction(async (client) => {
    const link = (await lockPaymentLink(client, id))!
    const now = paymentLinkStatus(link)
    if (now !== 'active') return { refused: now, link }
    if (link.openCharges >= settings.maxOpenCharges) return { refused: 'busy', link }
    // The merchant may have used `<link id>.<n>` as an order id of its own: the next number then.
    for (;;) {
      const n = await countPaymentLinkCharge(client, id)
      const created = newCharge(priced, { merchantId: link.merchantId, orderId: `${id}.${n}`, ttlSeconds: settings.chargeTtlSeconds, paymentLinkId: id })
      const charge = await insertCharge(client, created.charge)
      if (charge) return { charge }
    }
  })
}
