/**
 * What every new charge goes through, whether a merchant asks for it over the API or a payer makes it
 * from a payment link: the token must be supported, the beneficiary real, and the contract must price
 * the amount (its fees are quoted now, per charge); then the row to store, with its payment-page token.
 */
import { randomBytes } from 'node:crypto'
import { maxUint256, type Hex } from 'viem'
import type { DirectoryToken } from '../../../chain/index.js'
import { randomBytes16, ZERO_BYTES16 } from '../../../wire/index.js'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import type { Merchant, NewCharge } from '../../db/index.js'
import type { ChargeTerms } from './charge-terms.js'
import { issueEphemeralToken } from './ephemeral-token.js'

export interface ChargeAsked {
  amount: string
  token: string
  beneficiary: string
}

export interface PricedCharge {
  token: DirectoryToken
  beneficiary: Hex
  amount: bigint
  acquirerId: Hex
  fees: bigint
}

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`

/** The asked charge checked against the chain; refusals are 400s naming the field, a node that does not answer a 503. */
export async function priceCharge(terms: ChargeTerms, merchant: Pick<Merchant, 'acquirerId'>, asked: ChargeAsked): Promise<PricedCharge> {
  const token = terms.token(asked.token.toLowerCase() as Hex)
  if (!token) throw badParam('token', `token ${asked.token} is not supported by the settlement contract`)
  const beneficiary = asked.beneficiary.toLowerCase() as Hex
  if (beneficiary === ZERO_ADDRESS) throw badParam('beneficiary', 'beneficiary must not be the zero address')
  const amount = BigInt(asked.amount)
  if (amount > maxUint256) throw badParam('amount', `amount ${asked.amount} exceeds uint256`)
  const acquirerId = merchant.acquirerId ?? ZERO_BYTES16
  const fees = await terms.feesOn(amount, acquirerId).catch((error: unknown) => {
    throw new ProblemError(503, 'the chain node did not answer the fee lookup; retry the same request later', undefined, { cause: error })
  })
  if (fees === undefined) throw badParam('amount', `amount ${asked.amount} is beyond what the settlement contract can charge fees on`)
  if (amount + fees > maxUint256) throw badParam('amount', `amount ${asked.amount} plus fees exceeds uint256`)
  return { token, beneficiary, amount, acquirerId, fees }
}

/** The row of a new charge awaiting payment for `ttlSeconds`, and its first payment-page token. */
export function newCharge(priced: PricedCharge, fields: { merchantId: string; orderId: string; ttlSeconds: number; paymentLinkId?: string }): { charge: NewCharge; ephemeralToken: string } {
  const createdAt = new Date()
  const deadline = new Date(createdAt.getTime() + fields.ttlSeconds * 1000)
  const issued = issueEphemeralToken(deadline, createdAt.getTime())
  const charge: NewCharge = {
    id: `ch_${randomBytes(12).toString('hex')}`,
    merchantId: fields.merchantId,
    amount: priced.amount,
    token: priced.token.address.toLowerCase() as Hex,
    currency: priced.token.symbol,
    beneficiary: priced.beneficiary,
    orderId: fields.orderId,
    orderReference: randomBytes16(),
    acquirerId: priced.acquirerId,
    fees: priced.fees,
    deadline,
    createdAt,
    ephemeralTokenHash: issued.hash,
    ephemeralTokenExpiresAt: issued.expiresAt,
    ...(fields.paymentLinkId && { paymentLinkId: fields.paymentLinkId }),
  }
  return { charge, ephemeralToken: issued.token }
}
