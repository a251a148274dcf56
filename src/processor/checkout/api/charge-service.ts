/**
 * The merchant API's operations on charges, behind the HTTP edge (which has already checked the shape of
 * every input): creation with its chain checks, fees and `Idempotency-Key`, reads scoped to the
 * merchant, keyset listing and cancellation. Refusals are `ProblemError`s; a refused request stores
 * nothing (creation is one transaction, and everything it can refuse is checked before or inside it).
 */
import { createHash } from 'node:crypto'
import { paymentsOfCharge } from '../../db/index.js'
import { findChargeByOrderId, insertCharge, listCharges, lockCharge, type ChargeRow, type ChargeStatus } from '../../db/index.js'
import type { Merchant } from '../../db/index.js'
import type { Database, Sql } from '../../db/index.js'
import type { Problem } from '../../../wire/index.js'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import { canTransition, changePayable, chargeKind } from '../../charges/index.js'
import { chargeFilterOf, type ChargeFilterQuery } from './charge-filter.js'
import { newCharge, priceCharge } from './charge-pricing.js'
import type { ChargeTerms } from './charge-terms.js'
import { earlierCreation, lockedEarlierCreation, rememberCreation, replayToken, type IdempotentRequest } from './idempotent-creation.js'
import { keysetPage, type PageQuery } from './keyset-page.js'
import { ownPayable } from './own-payable.js'
import { renderCharge, renderPayment, type ChargeJson, type PaymentJson } from '../../charges/index.js'

export interface CreateChargeRequest {
  amount: string
  token: string
  beneficiary: string
  currency: string
  orderId: string
  /** This charge's lifetime, at most the engine's CHARGE_TTL_SECONDS (its default). */
  expiresInSeconds?: number
}

export interface ListChargesQuery extends ChargeFilterQuery, PageQuery {}

export interface ChargeService {
  /** `replayed`: an earlier request with the same Idempotency-Key and body created it. */
  create(merchant: Merchant, request: CreateChargeRequest, idempotencyKey?: string): Promise<{ charge: ChargeJson; replayed: boolean }>
  get(merchant: Merchant, id: string): Promise<ChargeJson>
  list(merchant: Merchant, query: ListChargesQuery): Promise<{ charges: ChargeJson[]; nextCursor: string | null }>
  cancel(merchant: Merchant, id: string): Promise<ChargeJson>
  payments(merchant: Merchant, id: string): Promise<{ payments: PaymentJson[] }>
}

export interface ChargeServiceParams {
  db: Database
  terms: ChargeTerms
  widgetBaseUrl: string
  chargeTtlSeconds: number
}

/** 409 for an order id the merchant already has a charge for; `chargeId` names that charge. */
export class DuplicateOrderError extends ProblemError {
  constructor(readonly chargeId: string, orderId: string) {
    super(409, `orderId "${orderId}" already has charge ${chargeId}`, 'orderId')
  }

  override toProblem(): Problem & { chargeId: string } {
    return { ...super.toProblem(), chargeId: this.chargeId }
  }
}

export function chargeService({ db, terms, widgetBaseUrl, chargeTtlSeconds }: ChargeServiceParams): ChargeService {
  const render = (row: ChargeRow, ephemeralToken: string | null = null) => renderCharge(row, widgetBaseUrl, ephemeralToken)
  const own = (sql: Sql, merchant: Merchant, id: string) => ownPayable(sql, chargeKind, merchant.id, id)

  /** The same key and body again: the charge it made, with a payment-page token of its own (beside the first answer's) while it can be paid. */
  const replay = async (sql: Sql, merchant: Merchant, chargeId: string) => {
    const charge = await own(sql, merchant, chargeId)
    return { charge: render(charge, await replayToken(sql, chargeKind, charge)), replayed: true }
  }

  return {
    async create(merchant, request, idempotencyKey) {
      // A lifetime joins the hashed fields only when given, so keys stored before it existed keep their hash.
      const hashed = [request.amount, request.token, request.beneficiary, request.currency, request.orderId, ...(request.expiresInSeconds === undefined ? [] : [request.expiresInSeconds])]
      const requestHash = createHash('sha256').update(JSON.stringify(hashed)).digest('hex')
      const idempotent: IdempotentRequest = { kind: 'charge', merchantId: merchant.id, key: idempotencyKey, requestHash, otherRequest: 'request body' }
      const known = await earlierCreation(db.pool, idempotent)
      if (known) return db.transaction((client) => replay(client, merchant, known))

      const ttlSeconds = request.expiresInSeconds ?? chargeTtlSeconds
      if (ttlSeconds > chargeTtlSeconds) throw badParam('expiresInSeconds', `expiresInSeconds must be at most ${chargeTtlSeconds}, this engine's CHARGE_TTL_SECONDS`)
      const priced = await priceCharge(terms, merchant, request)
      if (request.currency !== priced.token.symbol) throw badParam('currency', `currency must be "${priced.token.symbol}", the symbol of token ${priced.token.address}`)

      return db.transaction(async (client) => {
        const raced = await lockedEarlierCreation(client, idempotent)
        if (raced) return replay(client, merchant, raced)
        const created = newCharge(priced, { merchantId: merchant.id, orderId: request.orderId, ttlSeconds })
        const charge = await insertCharge(client, created.charge)
        if (!charge) {
          const existing = await findChargeByOrderId(client, merchant.id, request.orderId)
          throw new DuplicateOrderError(existing!.id, request.orderId)
        }
        await rememberCreation(client, idempotent, charge.id)
        return { charge: render(charge, created.ephemeralToken), replayed: false }
      })
    },

    get: async (merchant, id) => render(await own(db.pool, merchant, id)),

    async list(merchant, query) {
      const filter = chargeFilterOf(query)
      const { rows, nextCursor } = await keysetPage(query, (page) => listCharges(db.pool, merchant.id, { ...filter, ...page }))
      return { charges: rows.map((row) => render(row)), nextCursor }
    },

    cancel: (merchant, id) =>
      db.transaction(async (client) => {
        await own(client, merchant, id)
        const charge = (await lockCharge(client, id))!
        if (!canTransition(chargeKind, charge.status, 'canceled')) throw new ProblemError(409, `charge ${id} is ${charge.status}; only a charge awaiting payment can be canceled`)
        return render(await changePayable(client, chargeKind, charge, { to: 'canceled' }, widgetBaseUrl))
      }),

    async payments(merchant, id) {
      await own(db.pool, merchant, id)
      return { payments: (await paymentsOfCharge(db.pool, id)).map(renderPayment) }
    },
  }
}
