/**
 * The merchant API's operations on payment links (issue 23): creation (checked and priced as a charge of
 * that amount would be, so a link never hands payers a charge the contract refuses), reads scoped to the
 * merchant, keyset listing and deactivation. The charges a link makes are the widget's
 * (payment-link-charges.ts).
 */
import { randomBytes } from 'node:crypto'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import { deactivatePaymentLink, findPaymentLink, insertPaymentLink, listPaymentLinks, type Database, type Merchant } from '../../db/index.js'
import { keysetPage, type PageQuery } from './keyset-page.js'
import { priceCharge } from './charge-pricing.js'
import type { ChargeTerms } from './charge-terms.js'
import { instantOf } from './charge-filter.js'
import { renderPaymentLink, type PaymentLinkJson } from './payment-link-json.js'

export interface CreatePaymentLinkRequest {
  amount: string
  token: string
  beneficiary: string
  description: string
  maxUses?: number
  expiresAt?: string
}

export interface PaymentLinkService {
  create(merchant: Merchant, request: CreatePaymentLinkRequest): Promise<PaymentLinkJson>
  get(merchant: Merchant, id: string): Promise<PaymentLinkJson>
  list(merchant: Merchant, query: PageQuery): Promise<{ paymentLinks: PaymentLinkJson[]; nextCursor: string | null }>
  deactivate(merchant: Merchant, id: string): Promise<PaymentLinkJson>
}

export function paymentLinkService({ db, terms, widgetBaseUrl }: { db: Database; terms: ChargeTerms; widgetBaseUrl: string }): PaymentLinkService {
  const render = (row: Parameters<typeof renderPaymentLink>[0]) => renderPaymentLink(row, widgetBaseUrl)
  const missing = (id: string) => new ProblemError(404, `no payment link ${id}`)
  return {
    async create(merchant, request) {
      const expiresAt = request.expiresAt === undefined ? null : instantOf('expiresAt', request.expiresAt)
      if (expiresAt && expiresAt <= new Date()) throw badParam('expiresAt', `expiresAt ${request.expiresAt} is not in the future`)
      const priced = await priceCharge(terms, merchant, request)
      const link = await insertPaymentLink(db.pool, {
        id: `pl_${randomBytes(12).toString('hex')}`,
        merchantId: merchant.id,
        amount: priced.amount,
        token: priced.token.address.toLowerCase() as PaymentLinkJson['token'],
        currency: priced.token.symbol,
        beneficiary: priced.beneficiary,
        description: request.description,
        maxUses: request.maxUses ?? null,
        expiresAt,
      })
      return render(link)
    },

    async get(merchant, id) {
      const link = await findPaymentLink(db.pool, merchant.id, id)
      if (!link) throw missing(id)
      return render(link)
    },

    async list(merchant, query) {
      const { rows, nextCursor } = await keysetPage(query, (page) => listPaymentLinks(db.pool, merchant.id, page))
      return { paymentLinks: rows.map(render), nextCursor }
    },

    async deactivate(merchant, id) {
      const link = await deactivatePaymentLink(db.pool, merchant.id, id)
      if (!link) throw missing(id)
      return render(link)
    },
  }
}
