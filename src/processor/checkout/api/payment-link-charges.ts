/**
 * A payer's charge from a payment link (issue 23), made when the payer presses the link page's "Pay"
 * button on the widget: checked (not deactivated, not expired, fewer than `maxUses` uses, fewer than
 * `maxOpenCharges` held charges) before anything asks the node, priced (fees are the contract's today, the
 * token must still be supported), then checked again with the link's row locked and stored as an ordinary
 * charge with the order id `<link id>.<n>`, held for `holdSeconds` (issue 38 item 6: a use of the link
 * until then, or once paid). Reconciliation and webhooks treat it like any other charge.
 */
import { ProblemError } from '../../../platform/http/index.js'
import { countPaymentLinkCharge, findMerchant, findPaymentLinkById, holdPaymentLinkCharge, insertCharge, lockPaymentLink, type ChargeRow, type Database, type PaymentLinkRow } from '../../db/index.js'
import { newCharge, priceCharge } from './charge-pricing.js'
import type { ChargeTerms } from './charge-terms.js'
import { paymentLinkStatus, type PaymentLinkStatus } from './payment-link-json.js'

export interface LinkChargeSettings {
  chargeTtlSeconds: number
  /** Held charges of one link at once: what a flood from many addresses can hold. */
  maxOpenCharges: number
  /** How long an unpaid charge holds one of the link's uses. */
  holdSeconds: number
}

/** Why a link takes no charge now: its status, or `busy` (held charges fill it; their holds end soon). */
export type LinkRefusal = Exclude<PaymentLinkStatus, 'active'> | 'busy'

export type LinkChargeOutcome =
  | { charge: ChargeRow }
  /** No charge: the link's refusal, or `unpriced` (the token or fee lookup fails now). */
  | { refused: LinkRefusal | 'unpriced'; link: PaymentLinkRow }

/** `maxHeld`: the held charges a link may have at once. */
export function linkRefusal(link: PaymentLinkRow, maxHeld: number): LinkRefusal | undefined {
  const status = paymentLinkStatus(link)
  // Paid charges alone below maxUses: the holds end soon and give their uses back.
  if (status === 'used-up' && link.uses - link.heldCharges < link.maxUses!) return 'busy'
  if (status !== 'active') return status
  if (link.heldCharges >= maxHeld) return 'busy'
  return undefined
}

/** Undefined when there is no such link. */
export async function chargeFromPaymentLink(db: Database, terms: ChargeTerms, id: string, settings: LinkChargeSettings): Promise<LinkChargeOutcome | undefined> {
  const seen = await findPaymentLinkById(db.pool, id)
  if (!seen) return undefined
  const refused = linkRefusal(seen, settings.maxOpenCharges)
  if (refused) return { refused, link: seen }
  const merchant = await findMerchant(db.pool, seen.merchantId)
  const priced = await priceCharge(terms, { acquirerId: merchant?.acquirerId ?? null }, seen).catch((error: unknown) => {
    if (error instanceof ProblemError) return undefined
    throw error
  })
  if (!priced) return { refused: 'unpriced', link: seen }
  return db.transaction(async (client) => {
    const link = (await lockPaymentLink(client, id))!
    const refusedNow = linkRefusal(link, settings.maxOpenCharges)
    if (refusedNow) return { refused: refusedNow, link }
    // The merchant may have used `<link id>.<n>` as an order id of its own: the next number then.
    for (;;) {
      const n = await countPaymentLinkCharge(client, id)
      const created = newCharge(priced, { merchantId: link.merchantId, orderId: `${id}.${n}`, ttlSeconds: settings.chargeTtlSeconds, paymentLinkId: id })
      const charge = await insertCharge(client, created.charge)
      if (!charge) continue
      await holdPaymentLinkCharge(client, charge.id, settings.holdSeconds)
      return { charge }
    }
  })
}
