/**
 * Registers an acquirer: `payer` signs the permit for `acquiringPrice` and the
 * `BuyAcquiringPackPermitParams` binding; the sender submits `buyAcquiringPack` and the new acquirer id
 * is read from the `AcquirerCreated` event.
 */
import { encodeFunctionData, parseEventLogs, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { settlementAbi } from '../abi/settlement-abi.js'
import type { TxSender } from '../tx/create-tx-sender.js'
import { createPermitTracker, type PermitTracker } from './permit-tracker.js'
import { signPermitPair } from '../../wire/index.js'
import { buyAcquiringPackTypes } from '../../wire/index.js'
import { BaseError } from '../../errors/index.js'

export interface BuyAcquiringPackParams {
  publicClient: PublicClient
  sender: TxSender
  settlementContract: Hex
  payer: LocalAccount
  /** An allowed token the pack is paid in. */
  token: Hex
  acquiring: Hex
  /** Basis points, at most `maxAcquiringFee`. */
  feePercent: number
  permits?: PermitTracker
  deadline?: bigint
}

export interface AcquiringPack {
  txHash: Hex
  acquirerId: Hex
  wallet: Hex
  feePercent: number
}

export async function buyAcquiringPack(params: BuyAcquiringPackParams): Promise<AcquiringPack> {
  const { publicClient, sender, settlementContract, payer, token, acquiring, feePercent } = params
  const permits = params.permits ?? createPermitTracker(publicClient)
  const deadline = params.deadline ?? BigInt(Math.floor(Date.now() / 1000)) + 3_600n
  const [price, tokenDomain] = await Promise.all([
    publicClient.readContract({ address: settlementContract, abi: settlementAbi, functionName: 'acquiringPrice' }),
    permits.tokenDomain(token),
    permits.load(token, payer.address),
  ])
  const permit = {
    owner: payer.address,
    spender: settlementContract,
    value: price,
    nonce: permits.take(token, payer.address),
    deadline,
  }
  const sigs = await signPermitPair({
    payer,
    tokenDomain,
    permit,
    settlementContract,
    binding: {
      types: buyAcquiringPackTypes,
      primaryType: 'BuyAcquiringPackPermitParams',
      message: { token, feeValue: BigInt(feePercent), acquiring, permitParams: permit },
    },
  })
  const data = encodeFunctionData({
    abi: settlementAbi,
    functionName: 'buyAcquiringPack',
    args: [
      token, payer.address, acquiring, BigInt(feePercent), price, deadline,
      sigs.v1, sigs.r1, sigs.s1, sigs.v2, sigs.r2, sigs.s2,
    ],
  })
  const txHash = await sender.send({ to: settlementContract, data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash })
  const [created] = parseEventLogs({ abi: settlementAbi, eventName: 'AcquirerCreated', logs: receipt.logs })
  if (receipt.status !== 'success' || !created) throw new BaseError(`buyAcquiringPack failed in ${txHash}`, { details: { txHash } })
  return {
    txHash,
    acquirerId: created.args.acquirerId.toLowerCase() as Hex,
    wallet: created.args.wallet.toLowerCase() as Hex,
    feePercent,
  }
}
