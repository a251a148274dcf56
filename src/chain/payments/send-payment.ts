/**
 * Signs a payment for `payer` and has the relayer submit it as `transferWithPermit`. The permit nonce and
 * the relayer's transaction nonce are taken together, synchronously: the relayer's transactions are mined
 * in nonce order, so each payer's permits reach the token in the order their nonces were handed out, and
 * many payments can be in flight at once.
 */
import { encodeFunctionData, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { settlementAbi } from '../abi/settlement-abi.js'
import type { TxSender } from '../tx/create-tx-sender.js'
import { ZERO_BYTES16 } from '../../wire/index.js'
import { createPermitTracker, type PermitTracker } from './permit-tracker.js'
import { signPayment, type SignedPayment } from '../../wire/index.js'

/** Measured at ~145k (~160k with an acquirer); the margin covers first writes to empty balance slots. */
export const PAYMENT_GAS = 250_000n

/** How long a signed payment stays valid, in seconds. */
const DEFAULT_VALIDITY_S = 3_600n

export interface SendPaymentParams {
  publicClient: PublicClient
  relayer: TxSender
  settlementContract: Hex
  payer: LocalAccount
  token: Hex
  recipient: Hex
  principal: bigint
  orderReference: Hex
  acquirerId?: Hex
  /** Share one tracker between payments so a payer can have several in flight; default: a fresh one. */
  permits?: PermitTracker
  /** Unix seconds; default now + 1 hour. */
  deadline?: bigint
}

export interface SentPayment extends SignedPayment {
  txHash: Hex
  payer: Hex
  token: Hex
  recipient: Hex
  orderReference: Hex
  acquirerId: Hex
}

export async function sendPayment(params: SendPaymentParams): Promise<SentPayment> {
  const { publicClient, relayer, settlementContract, payer, token, recipient, principal, orderReference } = params
  const acquirerId = params.acquirerId ?? ZERO_BYTES16
  const permits = params.permits ?? createPermitTracker(publicClient)
  const deadline = params.deadline ?? BigInt(Math.floor(Date.now() / 1000)) + DEFAULT_VALIDITY_S

  const [fee, tokenDomain] = await Promise.all([
    publicClient.readContract({
      address: settlementContract,
      abi: settlementAbi,
      functionName: 'calculateFees',
      args: [principal, acquirerId],
    }),
    permits.tokenDomain(token),
    permits.load(token, payer.address),
  ])
  // From here to the nonce reservation nothing awaits: the two nonces must be taken as one step.
  const permitNonce = permits.take(token, payer.address)
  const nonce = relayer.reserveNonce()

  const signed = await signPayment({
    payer,
    settlementContract,
    tokenDomain,
    recipient,
    principal,
    fee,
    permitNonce,
    deadline,
    orderReference,
    acquirerId,
  })
  const data = encodeFunctionData({ abi: settlementAbi, functionName: 'transferWithPermit', args: signed.args })
  try {
    const txHash = await relayer.send({ to: settlementContract, data, gas: PAYMENT_GAS, nonce })
    return {
      ...signed,
      txHash,
      payer: payer.address.toLowerCase() as Hex,
      token: token.toLowerCase() as Hex,
      recipient: recipient.toLowerCase() as Hex,
      orderReference: orderReference.toLowerCase() as Hex,
      acquirerId: acquirerId.toLowerCase() as Hex,
    }
  } catch (error) {
    permits.forget(token, payer.address)
    throw error
  }
}
