/**
 * A payment session as the checkout widget hands it to a wallet (PROCESSOR.md §5): everything needed
 * to sign a payment of a charge.
 */
import type { Hex } from 'viem'

export interface PaymentSession {
  token: Hex
  beneficiary: Hex
  /** What the beneficiary receives, in token units (decimal string). */
  principal: string
  orderReference: Hex
  acquirerId: Hex
  /** Unix seconds: the charge's deadline; the permit expires then too. */
  deadline: number
  chainId: number
  settlementContract: Hex
  walletGatewayUrl: string
}

/** What `pay` needs to know of the token: its EIP-712 domain (from the data service's /tokens). */
export interface SessionToken {
  name: string
  version: string
  domainSeparator: Hex
}
