/**
 * Signs the two signatures every settlement-contract call carries: the token's ERC-2612 permit (v1,r1,s1)
 * and the contract's EIP-712 binding signature over the same permit fields (v2,r2,s2).
 */
import { parseSignature, type Hex, type LocalAccount, type TypedData } from 'viem'
import { permitTypes, settlementDomain, type PermitMessage, type TokenDomain } from './typed-data.js'
import { BaseError } from './base-error.js'

export interface PermitPair {
  v1: number
  r1: Hex
  s1: Hex
  v2: number
  r2: Hex
  s2: Hex
}

export interface SignPermitPairParams<types extends TypedData, primaryType extends keyof types & string> {
  payer: LocalAccount
  tokenDomain: TokenDomain
  permit: PermitMessage
  /** The binding is signed in the settlement contract's domain, on the token's chain. */
  settlementContract: Hex
  binding: {
    types: types
    primaryType: primaryType
    message: Record<string, unknown>
  }
}

export async function signPermitPair<types extends TypedData, primaryType extends keyof types & string>(
  params: SignPermitPairParams<types, primaryType>,
): Promise<PermitPair> {
  const { payer, tokenDomain, permit, settlementContract, binding } = params
  if (!payer.signTypedData) throw new BaseError('payer account cannot sign typed data')
  const [permitSignature, bindingSignature] = await Promise.all([
    payer.signTypedData({ domain: tokenDomain, types: permitTypes, primaryType: 'Permit', message: permit }),
    payer.signTypedData({
      domain: settlementDomain(tokenDomain.chainId, settlementContract),
      types: binding.types,
      primaryType: binding.primaryType,
      message: binding.message,
    } as Parameters<NonNullable<LocalAccount['signTypedData']>>[0]),
  ])
  const first = splitSignature(permitSignature)
  const second = splitSignature(bindingSignature)
  return { v1: first.v, r1: first.r, s1: first.s, v2: second.v, r2: second.r, s2: second.s }
}

/** The contract takes (v, r, s) with v in {27, 28}. */
function splitSignature(signature: Hex): { v: number; r: Hex; s: Hex } {
  const { r, s, yParity } = parseSignature(signature)
  return { v: 27 + yParity, r, s }
}
