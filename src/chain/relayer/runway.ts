/**
 * The relayer's runway: how many more payments its native balance pays for. The gas of one payment is
 * measured from the receipts of the settlement contract's recent `PermittedTransfer` transactions sent
 * by the relayer (a transaction's gas shared among the settlements it carries), priced at the node's
 * current gas price. Without recent payments, the gas limit the relayer sets on each payment stands in.
 */
import { parseAbiItem, type Hex, type PublicClient } from 'viem'
import { PAYMENT_GAS } from '../payments/send-payment.js'

const permittedTransfer = parseAbiItem(
  'event PermittedTransfer(bytes32 indexed domainSeparator, address indexed token, address indexed payer, address recipient, uint256 value, uint256 fee, bytes32 orderReference)',
)

export interface PaymentGas {
  /** Average gas per payment over the sampled transactions. */
  gasPerPayment: bigint
  /** Payments measured; 0 = none found, `gasPerPayment` is the relayer's gas limit per payment. */
  samples: number
}

export interface MeasurePaymentGasParams {
  publicClient: PublicClient
  settlementContract: Hex
  relayer: Hex
  /** How far back to look for payments (blocks); default 10,000, the range public nodes allow in one request. */
  lookbackBlocks?: bigint
  /** At most this many of the newest transactions are read; default 50. */
  maxTransactions?: number
}

export async function measurePaymentGas(params: MeasurePaymentGasParams): Promise<PaymentGas> {
  const { publicClient, settlementContract } = params
  const head = await publicClient.getBlockNumber({ cacheTime: 0 })
  const lookback = params.lookbackBlocks ?? 10_000n
  const fromBlock = head > lookback ? head - lookback + 1n : 0n
  const logs = await publicClient.getLogs({ address: settlementContract, event: permittedTransfer, fromBlock, toBlock: head })
  const perTx = new Map<Hex, number>()
  for (const log of logs) perTx.set(log.transactionHash, (perTx.get(log.transactionHash) ?? 0) + 1)
  const newest = [...perTx.entries()].slice(-(params.maxTransactions ?? 50))
  const receipts = await Promise.all(newest.map(([hash]) => publicClient.getTransactionReceipt({ hash })))
  const relayer = params.relayer.toLowerCase()
  let gas = 0n
  let payments = 0
  receipts.forEach((receipt, i) => {
    if (receipt.from.toLowerCase() !== relayer) return
    gas += receipt.gasUsed
    payments += newest[i]![1]
  })
  return payments === 0 ? { gasPerPayment: PAYMENT_GAS, samples: 0 } : { gasPerPayment: gas / BigInt(payments), samples: payments }
}

/** Whole payments `balance` pays for at `gasPerPayment` × `gasPrice` wei each. */
export function paymentsLeft(balance: bigint, gasPerPayment: bigint, gasPrice: bigint): bigint {
  const cost = gasPerPayment * gasPrice
  return cost === 0n ? BigInt(Number.MAX_SAFE_INTEGER) : balance / cost
}

export interface RelayerRunway extends PaymentGas {
  relayer: Hex
  balance: bigint
  gasPrice: bigint
  costPerPayment: bigint
  paymentsLeft: bigint
}

export async function relayerRunway(params: MeasurePaymentGasParams): Promise<RelayerRunway> {
  const [balance, gasPrice, gas] = await Promise.all([
    params.publicClient.getBalance({ address: params.relayer }),
    params.publicClient.getGasPrice(),
    measurePaymentGas(params),
  ])
  return {
    relayer: params.relayer.toLowerCase() as Hex,
    balance,
    gasPrice,
    ...gas,
    costPerPayment: gas.gasPerPayment * gasPrice,
    paymentsLeft: paymentsLeft(balance, gas.gasPerPayment, gasPrice),
  }
}
