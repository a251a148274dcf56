/**
 * The merchant API's refunds (issue 23): a refund of a settled charge is a payment request from the
 * charge's beneficiary (the merchant's wallet) to the charge's payer, with an order reference of its own;
 * the merchant's wallet pays it through its payment page like any payment, and reconciliation settles it.
 * The processor never holds a merchant key.
 *
 * What may be refunded: refunds awaiting a signature, confirming or settled are counted against what the
 * beneficiary received (the paying settlement's value), under the charge's row lock, so no two concurrent
 * requests can together refund more. Fees: the refund's payer, the merchant, pays the contract's fees on
 * top (acquirer zero, so the base fee only); the charge's payer receives exactly `amount`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { maxUint256, type Hex } from 'viem'
import { randomBytes16, ZERO_BYTES16, type Problem } from '../../../wire/index.js'
import { chargePaidBy, findCharge, findRefund, findRefundIdempotencyKey, insertRefund, insertRefundIdempotencyKey, lockCharge, lockIdempotencyKey, lockRefund } from '../../db/index.js'
import { listRefunds, refundsOfCharge, reservedRefundAmount, setRefundReplayToken, type ChargeStatus, type RefundRow } from '../../db/index.js'
import type { Database, Merchant, Sql } from '../../db/index.js'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import { canTransitionRefund, changeRefund, enqueueRefundEvent, renderRefund, type RefundJson } from '../../charges/index.js'
import { refundFilterOf, type RefundFilterQuery } from './charge-filter.js'
import type { ChargeTerms } from './charge-terms.js'
import { keysetPage, type PageQuery } from './keyset-page.js'
import { issueEphemeralToken } from './ephemeral-token.js'

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

/** 409: the refund would take the charge's refunds past what its beneficiary received; `refundable` is what is left. */
export class RefundExceedsRemainderError extends ProblemError {
  constructor(readonly refundable: bigint, detail: string) {
    super(409, detail, 'amount')
  }

  override toProblem(): Problem & { refundable: string } {
    return { ...super.toProblem(), refundable: this.refundable.toString() }
  }
}

const REFUNDABLE: ChargeStatus[] = ['settled', 'partially-refunded', 'refunded']

export function refundService({ db, terms, widgetBaseUrl, ttlSeconds }: RefundServiceParams): RefundService {
  const render = (row: RefundRow, ephemeralToken: string | null = null) => renderRefund(row, widgetBaseUrl, ephemeralToken)
  const ownCharge = async (sql: Sql, merchant: Merchant, id: string) => {
    const charge = await findCharge(sql, merchant.id, id)
    if (!charge) throw new ProblemError(404, `no charge ${id}`)
    return charge
  }
  const ownRefund = async (sql: Sql, merchant: Merchant, id: string) => {
    const refund = await findRefund(sql, merchant.id, id)
    if (!refund) throw new ProblemError(404, `no refund ${id}`)
    return refund
  }
  /** The same key, charge and body again: the refund it made, with a fresh payment-page token while it can be paid. */
  const replay = async (sql: Sql, merchant: Merchant, known: { requestHash: string; refundId: string }, requestHash: string) => {
    if (known.requestHash !== requestHash) throw new ProblemError(422, 'this Idempotency-Key was used with another charge or request body', 'Idempotency-Key')
    const refund = await ownRefund(sql, merchant, known.refundId)
    if (refund.status !== 'awaiting-signature') return { refund: render(refund), replayed: true }
    const issued = issueEphemeralToken(refund.deadline)
    await setRefundReplayToken(sql, refund.id, issued.hash, issued.expiresAt)
    return { refund: render(refund, issued.token), replayed: true }
  }

  return {
    async create(merchant, chargeId, request, idempotencyKey) {
      const requestHash = createHash('sha256').update(JSON.stringify([chargeId, request.amount, request.reason ?? null])).digest('hex')
      const known = idempotencyKey === undefined ? undefined : await findRefundIdempotencyKey(db.pool, merchant.id, idempotencyKey)
      if (known) return db.transaction((client) => replay(client, merchant, known, requestHash))

      const charge = await ownCharge(db.pool, merchant, chargeId)
      const amount = BigInt(request.amount)
      if (amount > maxUint256) throw badParam('amount', `amount ${request.amount} exceeds uint256`)
      const fees = await terms.feesOn(amount, ZERO_BYTES16).catch((error: unknown) => {
        throw new ProblemError(503, 'the chain node did not answer the fee lookup; retry the same request later', undefined, { cause: error })
      })
      if (fees === undefined || amount + fees > maxUint256) throw badParam('amount', `amount ${request.amount} is beyond what the settlement contract can charge fees on`)

      return db.transaction(async (client) => {
        if (idempotencyKey !== undefined) {
          // Refund keys are their own namespace: the lock's name is kept apart from charge creation's.
          await lockIdempotencyKey(client, merchant.id, `refund:${idempotencyKey}`)
          const raced = await findRefundIdempotencyKey(client, merchant.id, idempotencyKey)
          if (raced) return replay(client, merchant, raced, requestHash)
        }
        const locked = (await lockCharge(client, charge.id))!
        if (!REFUNDABLE.includes(locked.status)) throw new ProblemError(409, `charge ${charge.id} is ${locked.status}; only a settled charge can be refunded`)
        const paidBy = await chargePaidBy(client, charge.id)
        if (!paidBy) throw new ProblemError(409, `charge ${charge.id} has no live paying settlement to refund`)
        const refundable = BigInt(paidBy.amount) - (await reservedRefundAmount(client, charge.id))
        if (amount > refundable) {
          throw new RefundExceedsRemainderError(
            refundable > 0n ? refundable : 0n,
            `amount ${amount} is more than what is left to refund of charge ${charge.id}: ${refundable > 0n ? refundable : 0n} of the ${paidBy.amount} its beneficiary received (refunds settled, confirming or awaiting a signature count)`,
          )
        }
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
          recipient: paidBy.payer,
          orderReference: randomBytes16(),
          acquirerId: ZERO_BYTES16 as Hex,
          fees: fees.toString(),
          deadline,
          createdAt,
          ephemeralTokenHash: issued.hash,
          ephemeralTokenExpiresAt: issued.expiresAt,
        })
        if (idempotencyKey !== undefined) await insertRefundIdempotencyKey(client, merchant.id, idempotencyKey, { requestHash, refundId: refund.id })
        await enqueueRefundEvent(client, refund, 'refund.created', widgetBaseUrl)
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
        const refund = (await lockRefund(client, refundId))!
        if (!canTransitionRefund(refund.status, 'canceled')) throw new ProblemError(409, `refund ${refundId} is ${refund.status}; only a refund awaiting a signature can be canceled`)
        return render(await changeRefund(client, refund, { to: 'canceled' }, widgetBaseUrl))
      }),
  }
}
