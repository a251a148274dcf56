/**
 * Sends transactions from one local key with locally managed nonces and cached gas prices, so that many
 * transactions can be in flight at once without a round trip per nonce. Used by the relayer (payments),
 * the deployer and the devnet funding.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Hex, PublicClient } from 'viem'
import { addressOfKey, createTransactionSigner } from './native-signer.js'

export interface TxRequest {
  /** Omitted for a contract creation. */
  to?: Hex
  data: Hex
  value?: bigint
  /** Omitted = estimated by the node; pass a fixed limit on hot paths to save the round trip. */
  gas?: bigint
  /** From `reserveNonce()`, when the caller must order this transaction against other state. */
  nonce?: number
}

export interface TxSender {
  /** Lower case. */
  address: Hex
  chainId: number
  /** Takes the next nonce synchronously, so callers can pair it with other ordered state (permit nonces). */
  reserveNonce(): number
  send(tx: TxRequest): Promise<Hex>
}

export interface CreateTxSenderParams {
  publicClient: PublicClient
  privateKey: Hex
  chainId?: number
  /** How long a reserved nonce that was never sent holds the next transaction (STALLED_MS). */
  stalledMs?: number
}

/** Gas prices are re-read at most this often; payments in between reuse them. */
const FEE_REFRESH_MS = 2_000
/**
 * A transaction goes without its predecessor's hand-over only once that nonce was reserved and never
 * sent, and no hand-over at all has happened for this long. A long queue that is still moving, and a
 * predecessor still being prepared or sent, are waited out however long they take (a send settles, its
 * calls to the node time out): going early put a transaction in the pool ahead of its predecessors,
 * where an automining node left it (seen: 40 payments on a loaded machine, the last ones never mined;
 * and 8 payments whose first one took over 5 s to prepare on a machine running four test processes).
 */
const STALLED_MS = 5_000

export async function createTxSender({ publicClient, privateKey, chainId, stalledMs = STALLED_MS }: CreateTxSenderParams): Promise<TxSender> {
  const address = addressOfKey(privateKey)
  const signTransaction = createTransactionSigner(privateKey)
  const [resolvedChainId, pendingCount] = await Promise.all([
    chainId ?? publicClient.getChainId(),
    publicClient.getTransactionCount({ address, blockTag: 'pending' }),
  ])
  let nextNonce = pendingCount
  const fees = createFeeCache(publicClient)
  /**
   * Per reserved nonce: settles once the node has accepted (or refused) that transaction. Signing
   * runs in parallel, but hand-over follows nonce order: an automining node (anvil) mines what is
   * ready when a transaction arrives, so one arriving ahead of its predecessor could wait in the pool
   * for a block that never comes.
   */
  const handedOver = new Map<number, { done: Promise<void>; settle: () => void; sending: boolean }>()
  let lastHandOverAt = 0
  const reserve = (): number => {
    const nonce = nextNonce++
    let settle = () => {}
    handedOver.set(nonce, { done: new Promise<void>((resolve) => (settle = resolve)), settle, sending: false })
    return nonce
  }

  async function resync(): Promise<void> {
    nextNonce = Math.max(
      nextNonce,
      await publicClient.getTransactionCount({ address, blockTag: 'pending' }),
    )
  }

  return {
    address,
    chainId: resolvedChainId,
    reserveNonce: reserve,
    async send(tx) {
      const nonce = tx.nonce ?? reserve()
      const own = handedOver.get(nonce)
      if (own) own.sending = true
      try {
        const [gasPrice, gas] = await Promise.all([
          fees.get(),
          tx.gas ?? publicClient.estimateGas({ account: address, to: tx.to, data: tx.data, value: tx.value }),
        ])
        const serialized = signTransaction({
          type: 'eip1559',
          chainId: resolvedChainId,
          nonce,
          to: tx.to ?? null,
          data: tx.data,
          value: tx.value ?? 0n,
          gas,
          ...gasPrice,
        })
        await afterPredecessor(nonce)
        return await publicClient.sendRawTransaction({ serializedTransaction: serialized })
      } catch (error) {
        // A nonce that never reached the node would stall every later transaction: fill the gap.
        if (nonce < nextNonce) nextNonce = Math.min(nextNonce, nonce)
        await resync().catch(() => {})
        throw error
      } finally {
        lastHandOverAt = Date.now()
        handedOver.get(nonce)?.settle()
      }
    },
  }

  async function afterPredecessor(nonce: number): Promise<void> {
    const predecessor = handedOver.get(nonce - 1)
    const since = Date.now()
    let settled = false
    predecessor?.done.then(() => (settled = true))
    while (predecessor && !settled && (predecessor.sending || Date.now() - Math.max(since, lastHandOverAt) < stalledMs)) {
      await Promise.race([predecessor.done, sleep(stalledMs, undefined, { ref: false })])
    }
    handedOver.delete(nonce - 1)
  }
}

export interface FeeCache {
  get(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>
}

/** EIP-1559 prices re-read at most every FEE_REFRESH_MS; a failed refresh keeps the last good ones. */
export function createFeeCache(publicClient: PublicClient): FeeCache {
  let cached: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> | undefined
  let readAt = 0
  const read = async () => {
    const [block, maxPriorityFeePerGas] = await Promise.all([
      publicClient.getBlock({ blockTag: 'latest' }),
      publicClient.estimateMaxPriorityFeePerGas(),
    ])
    // Twice the base fee survives several full blocks of base-fee growth before the next refresh.
    return { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas }
  }
  return {
    get() {
      if (!cached || Date.now() - readAt > FEE_REFRESH_MS) {
        readAt = Date.now()
        const next = read()
        // Keep serving the previous prices if a refresh fails.
        const previous = cached
        cached = next.catch((error) => previous ?? Promise.reject(error))
      }
      return cached
    },
  }
}
