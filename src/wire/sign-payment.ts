/**
 * Builds a signed `transferWithPermit` call without touching the chain: every input (fee, permit nonce,
 * token domain) is given, so wallets, the gateway and the traffic generator can all use it.
 */
import type { Hex, LocalAccount } from 'viem'
import { packRef } from './order-reference.js'
import { signPermitPair } from './sign-permit-pair.js'
import { payWithPermitTypes, type TokenDomain } from './typed-data.js'

export interface SignPaymentParams {
  payer: LocalAccount
  settlementContract: Hex
  tokenDomain: TokenDomain
  recipient: Hex
  principal: bigint
  /** `calculateFees(principal, acquirerId)` as the contract reports it. */
  fee: bigint
  permitNonce: bigint
  /** Unix seconds. */
  deadline: bigint
  orderReference: Hex
  acquirerId?: Hex
}

export type TransferWithPermitArgs = readonly [
  token: Hex,
  tokenOwner: Hex,
  amount: bigint,
  deadline: bigint,
  v1: number,
  r1: Hex,
  s1: Hex,
  v2: number,
  r2: Hex,
  s2: Hex,
  recipient: Hex,
  ref: Hex,
]

export interface SignedPayment {
  args: TransferWithPermitArgs
  /** Principal + fee: what the payer gives and the permit's value. */
  amount: bigint
  principal: bigint
  fee: bigint
  ref: Hex
  /** The permit's spender (the settlement contract) and nonce, for the wire form of the request. */
  spender: Hex
  permitNonce: bigint
}

export async function signPayment(params: SignPaymentParams): Promise<SignedPayment> {
  const { payer, settlementContract, tokenDomain, recipient, principal, fee, permitNonce, deadline } = params
  const token = tokenDomain.verifyingContract
  const amount = principal + fee
  const ref = packRef(params.orderReference, params.acquirerId)
  const permit = { owner: payer.address, spender: settlementContract, value: amount, nonce: permitNonce, deadline }
  const sigs = await signPermitPair({
    payer,
    tokenDomain,
    permit,
    settlementContract,
    binding: {
      types: payWithPermitTypes,
      primaryType: 'PayWithPermitParams',
      message: { token, beneficiary: recipient, ref, permitParams: permit },
    },
  })
  const args = [
    token, payer.address, amount, deadline, sigs.v1, sigs.r1, sigs.s1, sigs.v2, sigs.r2, sigs.s2, recipient, ref,
  ] as const
  return { args, amount, principal, fee, ref, spender: settlementContract, permitNonce }
}
