/**
 * What a refund may take (issue 23): its amount must leave the contract room for its fees on top (the
 * refund's payer, the merchant, pays them; acquirer zero, so the base fee only), and must fit in what is
 * left of the charge — refunds awaiting a signature, confirming or settled count against what the
 * beneficiary received (the paying settlement's value). The remainder is read under the charge's row
 * lock, so no two concurrent requests can together refund more.
 */
import { maxUint256, type Hex } from 'viem'
import { ZERO_BYTES16, type Problem } from '../../../wire/index.js'
import { chargePaidBy, lockCharge, reservedRefundAmount, type ChargeRow, type ChargeStatus, type Sql } from '../../db/index.js'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import type { ChargeTerms } from './charge-terms.js'

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

/** The amount asked for and the contract's fees on it; refused when the contract could not charge them. */
export async function priceRefund(terms: ChargeTerms, requested: string): Promise<{ amount: bigint; fees: bigint }> {
  const amount = BigInt(requested)
  if (amount > maxUint256) throw badParam('amount', `amount ${requested} exceeds uint256`)
  const fees = await terms.feesOn(amount, ZERO_BYTES16).catch((error: unknown) => {
    throw new ProblemError(503, 'the chain node did not answer the fee lookup; retry the same request later', undefined, { cause: error })
  })
  if (fees === undefined || amount + fees > maxUint256) throw badParam('amount', `amount ${requested} is beyond what the settlement contract can charge fees on`)
  return { amount, fees }
}

/** Locks the charge and checks `amount` fits in what is left to refund; the locked charge and who the refund pays. */
export async function reserveRefund(sql: Sql, chargeId: string, amount: bigint): Promise<{ charge: ChargeRow; recipient: Hex }> {
  const charge = (await lockCharge(sql, chargeId))!
  if (!REFUNDABLE.includes(charge.status)) throw new ProblemError(409, `charge ${chargeId} is ${charge.status}; only a settled charge can be refunded`)
  const paidBy = await chargePaidBy(sql, chargeId)
  if (!paidBy) throw new ProblemError(409, `charge ${chargeId} has no live paying settlement to refund`)
  const left = BigInt(paidBy.amount) - (await reservedRefundAmount(sql, chargeId))
  const refundable = left > 0n ? left : 0n
  if (amount > left) {
    throw new RefundExceedsRemainderError(
      refundable,
      `amount ${amount} is more than what is left to refund of charge ${chargeId}: ${refundable} of the ${paidBy.amount} its beneficiary received (refunds settled, confirming or awaiting a signature count)`,
    )
  }
  return { charge, recipient: paidBy.payer }
}
