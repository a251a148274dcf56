/**
 * The relayer's transactions: its own nonce counter, signing, recording before sending, and fee-bumped
 * replacement of a transaction stuck past a timeout, up to a ceiling. The first transaction's fees are
 * the network's, but never above SUBMITTER_MAX_FEE_PER_GAS either: when the network asks more, it is
 * sent at the cap and waits until the base fee comes down (its replacements cannot pass the cap). Each submission owns exactly one nonce; every
 * transaction signed for it (the first and its replacements) reuses that nonce, so at most one of
 * them can ever be mined — the submitter's "at most once", whatever crashes in between.
 */
import { keccak256, parseTransaction, type Hex } from 'viem'
import { createChainClient, createTransactionSigner, type FeeCache } from '../../chain/index.js'
import type { RpcEndpoints } from '../../config/index.js'
import type { RecordedTransaction } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'

export interface SignedTx extends Omit<RecordedTransaction, 'sentAt'> {}

export interface Broadcaster {
  /** Takes the next relayer nonce. */
  takeNonce(): number
  /** Hands back nonces that were taken but never recorded (the recording transaction failed). */
  returnNonces(first: number): void
  /** A first transaction at the current fees, capped at `maxFeePerGas` (both fees). */
  sign(tx: { to: Hex; data: Hex; gas: bigint; nonce: number }): Promise<SignedTx>
  /**
   * A replacement of `previous`: same nonce and call, fees raised by at least 12.5 % (a node refuses
   * less), to current prices if higher, but never above `maxFeePerGas`; undefined when even the least
   * raise would pass it.
   */
  signReplacement(previous: RecordedTransaction, maxFeePerGas: bigint): Promise<SignedTx | undefined>
  /**
   * Sends recorded bytes; "already known" and "nonce too low" mean the node has (or had) it. Sends
   * started in the same tick travel as one JSON-RPC batch, in the order they were started.
   */
  send(raw: Hex): Promise<void>
}

export interface CreateBroadcasterParams {
  /** Used only to send (to every node that is fine: nodes/failover-transport.ts), with a client of its own (see below). */
  endpoints: RpcEndpoints
  relayerKey: Hex
  chainId: number
  fees: FeeCache
  /** The first nonce to hand out (after recovery). */
  nextNonce: number
  /** Wei per gas no transaction offers (SUBMITTER_MAX_FEE_PER_GAS); undefined = the network's price. */
  maxFeePerGas?: bigint
  log: Logger
}

const benignSendError = /already known|nonce too low|known transaction|already imported|replacement transaction underpriced/i

export function createBroadcaster(params: CreateBroadcasterParams): Broadcaster {
  const { chainId, fees, log } = params
  // Sends batch only with each other: sharing a batch with a step's eth_calls would hold them until the
  // slowest call of that batch is answered.
  const publicClient = createChainClient({ ...params.endpoints, chainId, batchSize: 1000, log })
  const signTransaction = createTransactionSigner(params.relayerKey)
  let nextNonce = params.nextNonce

  const signWith = (tx: { to: Hex; data: Hex; gas: bigint; nonce: number }, price: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): SignedTx => {
    const raw = signTransaction({ type: 'eip1559', chainId, nonce: tx.nonce, to: tx.to, data: tx.data, gas: tx.gas, value: 0n, ...price })
    return { txHash: keccak256(raw), nonce: tx.nonce, raw, ...price }
  }

  return {
    takeNonce: () => nextNonce++,
    returnNonces(first) {
      nextNonce = Math.min(nextNonce, first)
    },
    async sign(tx) {
      const current = await fees.get()
      const cap = params.maxFeePerGas
      if (cap === undefined || current.maxFeePerGas <= cap) return signWith(tx, current)
      return signWith(tx, { maxFeePerGas: cap, maxPriorityFeePerGas: min(current.maxPriorityFeePerGas, cap) })
    },
    async signReplacement(previous, ceiling) {
      const bump = (old: bigint) => old + old / 8n + 1n
      if (bump(previous.maxFeePerGas) > ceiling || bump(previous.maxPriorityFeePerGas) > ceiling) return undefined
      const { to, data, gas } = parseTransaction(previous.raw)
      const current = await fees.get()
      const maxPriorityFeePerGas = min(max(current.maxPriorityFeePerGas, bump(previous.maxPriorityFeePerGas)), ceiling)
      const maxFeePerGas = min(max(current.maxFeePerGas, bump(previous.maxFeePerGas), maxPriorityFeePerGas), ceiling)
      return signWith({ to: to!, data: data ?? '0x', gas: gas!, nonce: previous.nonce }, { maxFeePerGas, maxPriorityFeePerGas })
    },
    async send(raw) {
      try {
        await publicClient.sendRawTransaction({ serializedTransaction: raw })
      } catch (error) {
        const message = (error as { details?: string; message?: string }).details ?? (error as Error).message
        if (!benignSendError.test(message)) throw error
        log.debug('node already had the transaction', { hash: keccak256(raw), message })
      }
    },
  }
}

const max = (...values: bigint[]) => values.reduce((a, b) => (a > b ? a : b))
const min = (...values: bigint[]) => values.reduce((a, b) => (a < b ? a : b))
