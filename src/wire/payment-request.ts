/**
 * The signed requests a wallet hands to the gateway (PROCESSOR.md §2 `SUBMIT_PAYMENT` and
 * `SUBMIT_ACQUIRING`), and what the gateway and the submitter derive from them: the binding digest
 * (the idempotency key — the contract records it in `usedHashes`), the signers, and the contract call.
 * Amounts travel as decimal strings and signatures as `{ v, r, s }`. Browser-safe (the SDK builds them).
 */
import type { Hex } from 'viem'
import { domainSeparator, typedDataHasher } from './typed-data-hasher.js'
import { buyAcquiringPackTypes, payWithPermitTypes, permitTypes, settlementDomain, type TokenDomain } from './typed-data.js'
import type { SignedPayment, TransferWithPermitArgs } from './sign-payment.js'

export interface WireSignature {
  v: number
  r: Hex
  s: Hex
}

export interface WirePermitParams {
  owner: Hex
  spender: Hex
  value: string
  nonce: string
  deadline: string
}

export interface TransferRequest {
  payWithPermitParams: { token: Hex; beneficiary: Hex; ref: Hex; permitParams: WirePermitParams }
  /** The binding signature (v2, r2, s2). */
  payWithPermitSig: WireSignature
  /** The token's ERC-2612 permit signature (v1, r1, s1). */
  permitSig: WireSignature
  /** Chosen by the wallet; names the submission in every status push. */
  payloadId: string
}

export interface BuyAcquiringPackRequest {
  buyAcquiringPackParams: { token: Hex; feeValue: string; acquiring: Hex; permitParams: WirePermitParams }
  buyAcquiringPackSig: WireSignature
  permitSig: WireSignature
  payloadId: string
}

export type SubmissionKind = 'PAYMENT' | 'ACQUIRING'

/** What the submitter needs of either request, normalised. */
export interface PaymentIntent {
  kind: SubmissionKind
  payloadId: string
  token: Hex
  owner: Hex
  permit: { owner: Hex; spender: Hex; value: bigint; nonce: bigint; deadline: bigint }
  bindingSig: WireSignature
  permitSig: WireSignature
  /** PAYMENT: recipient and ref. ACQUIRING: acquiring wallet and fee (basis points). */
  beneficiary: Hex
  ref: Hex
  feeValue: bigint
}

export function intentOfPayment(request: TransferRequest): PaymentIntent {
  const { token, beneficiary, ref, permitParams } = request.payWithPermitParams
  return {
    kind: 'PAYMENT',
    payloadId: request.payloadId,
    token: lower(token),
    owner: lower(permitParams.owner),
    permit: toPermit(permitParams),
    bindingSig: request.payWithPermitSig,
    permitSig: request.permitSig,
    beneficiary: lower(beneficiary),
    ref: lower(ref),
    feeValue: 0n,
  }
}

export function intentOfAcquiring(request: BuyAcquiringPackRequest): PaymentIntent {
  const { token, feeValue, acquiring, permitParams } = request.buyAcquiringPackParams
  return {
    kind: 'ACQUIRING',
    payloadId: request.payloadId,
    token: lower(token),
    owner: lower(permitParams.owner),
    permit: toPermit(permitParams),
    bindingSig: request.buyAcquiringPackSig,
    permitSig: request.permitSig,
    beneficiary: lower(acquiring),
    ref: `0x${'0'.repeat(64)}`,
    feeValue: BigInt(feeValue),
  }
}

const hashPayWithPermit = typedDataHasher(payWithPermitTypes, 'PayWithPermitParams')
const hashBuyAcquiringPack = typedDataHasher(buyAcquiringPackTypes, 'BuyAcquiringPackPermitParams')
const hashPermit = typedDataHasher(permitTypes, 'Permit')

/** The EIP-712 digest the binding signature signs; the contract refuses it once used. */
export function bindingDigest(intent: PaymentIntent, chainId: number, settlementContract: Hex): Hex {
  const separator = domainSeparator(settlementDomain(chainId, settlementContract))
  return intent.kind === 'PAYMENT'
    ? hashPayWithPermit(separator, { token: intent.token, beneficiary: intent.beneficiary, ref: intent.ref, permitParams: intent.permit })
    : hashBuyAcquiringPack(separator, { token: intent.token, feeValue: intent.feeValue, acquiring: intent.beneficiary, permitParams: intent.permit })
}

export function permitDigest(intent: PaymentIntent, tokenDomain: TokenDomain): Hex {
  return hashPermit(domainSeparator(tokenDomain), intent.permit)
}

export function transferWithPermitArgs(intent: PaymentIntent): TransferWithPermitArgs {
  const { permit, permitSig: p, bindingSig: b } = intent
  return [intent.token, intent.owner, permit.value, permit.deadline, v27(p.v), p.r, p.s, v27(b.v), b.r, b.s, intent.beneficiary, intent.ref]
}

export function buyAcquiringPackArgs(intent: PaymentIntent) {
  const { permit, permitSig: p, bindingSig: b } = intent
  return [intent.token, intent.owner, intent.beneficiary, intent.feeValue, permit.value, permit.deadline, v27(p.v), p.r, p.s, v27(b.v), b.r, b.s] as const
}

/** The wire form of a locally signed payment (what `WalletClient.pay` sends). */
export function transferRequestOf(signed: SignedPayment, payloadId: string): TransferRequest {
  const [token, owner, amount, deadline, v1, r1, s1, v2, r2, s2, recipient, ref] = signed.args
  return {
    payWithPermitParams: {
      token,
      beneficiary: recipient,
      ref,
      permitParams: { owner, spender: signed.spender, value: amount.toString(), nonce: signed.permitNonce.toString(), deadline: deadline.toString() },
    },
    payWithPermitSig: { v: v2, r: r2, s: s2 },
    permitSig: { v: v1, r: r1, s: s1 },
    payloadId,
  }
}

const v27 = (v: number) => (v < 27 ? v + 27 : v)
const lower = (value: string) => value.toLowerCase() as Hex

function toPermit(p: WirePermitParams): PaymentIntent['permit'] {
  return { owner: lower(p.owner), spender: lower(p.spender), value: BigInt(p.value), nonce: BigInt(p.nonce), deadline: BigInt(p.deadline) }
}
