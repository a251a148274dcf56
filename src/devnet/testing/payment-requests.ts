/**
 * Signed payment requests as a wallet would hand them to the gateway (`TransferRequest`), built from the
 * devnet's payers: fees from the contract, permit nonces counted on from the token's, so one payer can
 * have several requests queued at once.
 */
import { randomUUID } from 'node:crypto'
import type { Hex } from 'viem'
import { settlementAbi } from '../../chain/index.js'
import { stablecoinAbi } from '../../chain/index.js'
import { createChainClient } from '../../chain/index.js'
import { randomBytes16, ZERO_BYTES16 } from '../../wire/index.js'
import { bindingDigest, intentOfPayment, transferRequestOf, type TransferRequest } from '../../wire/index.js'
import { createPermitTracker } from '../../chain/index.js'
import { nativeAccount } from '../../chain/index.js'
import { signPayment } from '../../wire/index.js'
import type { LocalChain } from './local-chain.js'

export interface SignedRequest {
  request: TransferRequest
  payer: Hex
  digest: Hex
  orderReference: Hex
}

export interface SignRequestsOptions {
  /** How many of the deployment's payers take turns, starting at `firstPayer`; default all. */
  payers?: number
  firstPayer?: number
  principal?: bigint
  /** Unix seconds; default an hour from now. */
  deadline?: bigint
  /** Added to each payer's token nonce: permits far ahead of anything the chain will reach. */
  nonceOffset?: bigint
}

export async function signTransferRequests(chain: LocalChain, count: number, opts: SignRequestsOptions = {}): Promise<SignedRequest[]> {
  const { deployment } = chain
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl })
  const permits = createPermitTracker(publicClient)
  const first = opts.firstPayer ?? 0
  const payerKeys = deployment.payerKeys.slice(first, first + (opts.payers ?? deployment.payerKeys.length))
  const token = deployment.tokens[0]!.address
  const principal = opts.principal ?? 5_000_000n
  const fee = await publicClient.readContract({ address: deployment.settlementContract, abi: settlementAbi, functionName: 'calculateFees', args: [principal, ZERO_BYTES16] })
  const tokenDomain = await permits.tokenDomain(token)
  const nextNonce = new Map<Hex, bigint>()
  const signed: SignedRequest[] = []
  for (let i = 0; i < count; i++) {
    const payer = nativeAccount(payerKeys[i % payerKeys.length]!)
    const nonce =
      nextNonce.get(payer.address) ??
      (await publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [payer.address] })) + (opts.nonceOffset ?? 0n)
    nextNonce.set(payer.address, nonce + 1n)
    const orderReference = randomBytes16()
    const payment = await signPayment({
      payer,
      settlementContract: deployment.settlementContract,
      tokenDomain,
      recipient: deployment.recipients[i % deployment.recipients.length]!,
      principal,
      fee,
      permitNonce: nonce,
      deadline: opts.deadline ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
      orderReference,
    })
    const request = transferRequestOf(payment, randomUUID())
    signed.push({
      request,
      payer: payer.address.toLowerCase() as Hex,
      digest: bindingDigest(intentOfPayment(request), deployment.chainId, deployment.settlementContract),
      orderReference,
    })
  }
  return signed
}
