/**
 * The merchant API's refunds (issue 23): a refund of a settled charge is a payment request from the
 * charge's beneficiary (the merchant's wallet) to the charge's payer, with an order reference of its own;
 * the merchant's wallet pays it through its payment page like any payment, and reconciliation settles it.
 * The processor never holds a merchant key. What a refund may take is `refundable.ts`; its
 * Idempotency-Key, as a charge's, `idempotent-creation.ts`.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { randomBytes16, ZERO_BYTES16 } from '../../../wire/index.js'
import { insertRefund, listRefunds, refundQueries, refundsOfCharge, type RefundRow } from '../../db/index.js'
import type { Database, Merchant, Sql } from '../../db/index.js'
import { ProblemError } from '../../../platform/http/index.js'
import { canTransition, changePayable, chargeKind, enqueuePayableEvent, refundKind, renderRefund, type RefundJson } from '../../charges/index.js'
import { refundFilterOf, type RefundFilterQuery } from './charge-filter.js'
import type { ChargeTerms } from './charge-terms.js'
import { keysetPage, type PageQuery } from './keyset-page.js'
import { issueEphemeralToken } from './ephemeral-token.js'
import { earlierCreation, lockedEarlierCreation, rememberCreation, replayToken, type IdempotentRequest } from './idempotent-creation.js'
import { ownPayable } from './own-payable.js'
import { priceRefund, reserveRefund } from './refundable.js'

export interface CreateRefundRequest {
  amount: string
  reason?: string
}

export interface ListRefundsQuery extends RefundFilterQuery, PageQuery {}

export interface RefundService {
  /** `replayed`: an earlier request with the same Idempotency-Key, charge and body created it. */
  create(merchant: Merchant, chargeId: string, request: CreateRefundRequest, idempotencyKey?: string): Promise<{ refund: RefundJson; replayed: boolean }>
  listOfCharge(merchant: Merchant, chargeId: string): Promise<{ refunds: RefundJson[] }>
  /** The merchant's refunds, newest first, filtered, in keyset pages: the rows of refunds.csv with the same filters. */
  list(merchant: Merchant, query: ListRefundsQuery): Promise<{ refunds: RefundJson[]; nextCursor: string | null }>
  get(merchant: Merchant, refundId: string): Promise<RefundJson>
  cancel(merchant: Merchant, refundId: string): Promise<RefundJson>
}

export interface RefundServiceParams {
  db: Database
  terms: ChargeTerms
  widgetBaseUrl: string
  /** A refund not paid by then expires, as a charge does. */
  ttlSeconds: number
}

export function refundService({ db, terms, widgetBaseUrl, ttlSeconds }: RefundServiceParams): RefundService {
  const render = (row: RefundRow, ephemeralToken: string | null = null) => renderRefund(row, widgetBaseUrl, ephemeralToken)
  const ownCharge = (sql: Sql, merchant: Merchant, id: string) => ownPayable(sql, chargeKind, merchant.id, id)
  const ownRefund = (sql: Sql, merchant: Merchant, id: string) => ownPayable(sql, refundKind, merchant.id, id)
  /** The same key, charge and body again: the refund it made, with a fresh payment-page token while it can be paid. */
  const replay = async (sql: Sql, merchant: Merchant, refundId: string) => {
    const refund = await ownRefund(sql, merchant, refundId)
    return { refund: render(refund, await replayToken(sql, refundKind, refund)), replayed: true }
  }

  return {
    async create(merchant, chargeId, request, idempotencyKey) {
      const requestHash = createHash('sha256').update(JSON.stringify([chargeId, request.amount, request.reason ?? null])).digest('hex')
      const idempotent: IdempotentRequest = { kind: 'refund', merchantId: merchant.id, key: idempotencyKey, requestHash, otherRequest: 'charge or request body' }
      const known = await earlierCreation(db.pool, idempotent)
      if (known) return db.transaction((client) => replay(client, merchant, known))

      const charge = await ownCharge(db.pool, merchant, chargeId)
      const { amount, fees } = await priceRefund(terms, request.amount)

      return db.transaction(async (client) => {
        const raced = await lockedEarlierCreation(client, idempotent)
        if (raced) return replay(client, merchant, raced)
        const { charge: locked, recipient } = await reserveRefund(client, charge.id, amount)
        const createdAt = new Date()
        const deadline = new Date(createdAt.getTime() + ttlSeconds * 1000)
        const issued = issueEphemeralToken(deadline, createdAt.getTime())
        const refund = await insertRefund(client, {
          id: `re_${randomBytes(12).toString('hex')}`,
          chargeId: charge.id,
          merchantId: merchant.id,
          amount: amount.toString(),
          reason: request.reason ?? null,
          token: locked.token,
          currency: locked.currency,
          payer: locked.beneficiary,
          recipient,
          orderReference: randomBytes16(),
          acquirerId: ZERO_BYTES16 as Hex,
          fees: fees.toString(),
          deadline,
          createdAt,
          ephemeralTokenHash: issued.hash,
          ephemeralTokenExpiresAt: issued.expiresAt,
        })
        await rememberCreation(client, idempotent, refund.id)
        await enqueuePayableEvent(client, refundKind, refund, 'refund.created', widgetBaseUrl)
        return { refund: render(refund, issued.token), replayed: false }
      })
    },

    async listOfCharge(merchant, chargeId) {
      await ownCharge(db.pool, merchant, chargeId)
      return { refunds: (await refundsOfCharge(db.pool, chargeId)).map((row) => render(row)) }
    },

    async list(merchant, query) {
      const filter = refundFilterOf(query)
      const { rows, nextCursor } = await keysetPage(query, (page) => listRefunds(db.pool, merchant.id, { ...filter, ...page }))
      return { refunds: rows.map((row) => render(row)), nextCursor }
    },

    get: async (merchant, refundId) => render(await ownRefund(db.pool, merchant, refundId)),

    cancel: (merchant, refundId) =>
      db.transaction(async (client) => {
        await ownRefund(client, merchant, refundId)
        const refund = (await refundQueries.lock(client, refundId))!
        if (!canTransition(refundKind, refund.status, 'canceled')) throw new ProblemError(409, `refund ${refundId} is ${refund.status}; only a refund awaiting a signature can be canceled`)
        return render(await changePayable(client, refundKind, refund, { to: 'canceled' }, widgetBaseUrl))
      }),
  }
}
