/**
 * EIP-712 types of the settlement contract's binding signatures and of the ERC-2612 permit (SPEC §1).
 * They must match the type strings hashed in contracts/SettlementContract.sol exactly.
 */
import type { Hex } from 'viem'

const permitParams = [
  { name: 'owner', type: 'address' },
  { name: 'spender', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
] as const

export const permitTypes = { Permit: permitParams } as const

export const payWithPermitTypes = {
  PayWithPermitParams: [
    { name: 'token', type: 'address' },
    { name: 'beneficiary', type: 'address' },
    { name: 'ref', type: 'bytes32' },
    { name: 'permitParams', type: 'PermitParams' },
  ],
  PermitParams: permitParams,
} as const

export const buyAcquiringPackTypes = {
  BuyAcquiringPackPermitParams: [
    { name: 'token', type: 'address' },
    { name: 'feeValue', type: 'uint256' },
    { name: 'acquiring', type: 'address' },
    { name: 'permitParams', type: 'PermitParams' },
  ],
  PermitParams: permitParams,
} as const

export function settlementDomain(chainId: number, settlementContract: Hex) {
  return { name: 'SettlementContract', version: '1', chainId, verifyingContract: settlementContract } as const
}

/** The EIP-712 domain of an ERC-2612 token, as its `eip712Domain()` (ERC-5267) reports it. */
export interface TokenDomain {
  name: string
  version: string
  chainId: number
  verifyingContract: Hex
}

/** The fields of a permit, shared by the token's `Permit` and the contract's `PermitParams`. */
export interface PermitMessage {
  owner: Hex
  spender: Hex
  value: bigint
  nonce: bigint
  deadline: bigint
}
