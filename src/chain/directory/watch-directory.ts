/**
 * Keeps a `Directory` current: re-reads it whenever the settlement contract emits an admin event
 * (fee, price, maximum, fee recipient, allowed token). Polls the contract's logs; a failing node keeps
 * the last good directory and retries on the next tick. Nothing is reported once `stop()` is called.
 */
import { parseAbi, type Hex, type PublicClient } from 'viem'
import { readDirectory, type Directory } from './read-directory.js'

export const adminEvents = parseAbi([
  'event BaseFeeAmountUpdated(uint256 baseFeeAmount)',
  'event AcquiringPriceUpdated(uint256 acquiringPrice)',
  'event MaxAcquiringFeeUpdated(uint256 maxAcquiringFee)',
  'event FeeRecipientUpdated(address indexed feeRecipient)',
  'event AcquiringAllowedTokenAdded(address indexed token)',
])

export interface DirectoryWatch {
  current(): Directory
  /** Why the last poll failed; cleared by the next poll that succeeds. */
  lastError(): Error | undefined
  stop(): void
}

export interface WatchDirectoryParams {
  publicClient: PublicClient
  settlementContract: Hex
  fromBlock: bigint
  pollIntervalMs: number
  onChange?(directory: Directory): void
  onError?(error: Error): void
  /** A poll succeeded after one or more failed. */
  onRecover?(): void
}

export async function watchDirectory(params: WatchDirectoryParams): Promise<DirectoryWatch> {
  const { publicClient, settlementContract } = params
  let directory = await readDirectory(params)
  let lastError: Error | undefined
  let stopped = false
  let timer: NodeJS.Timeout | undefined

  const tick = async () => {
    try {
      const head = await publicClient.getBlockNumber({ cacheTime: 0 })
      if (head > directory.blockNumber) {
        const logs = await publicClient.getLogs({ address: settlementContract, events: adminEvents, fromBlock: directory.blockNumber + 1n, toBlock: head })
        const next = logs.length > 0 ? await readDirectory(params) : { ...directory, blockNumber: head }
        if (stopped) return
        directory = next
        if (logs.length > 0) params.onChange?.(directory)
      }
      if (lastError) {
        lastError = undefined
        params.onRecover?.()
      }
    } catch (error) {
      if (stopped) return
      lastError = error as Error
      params.onError?.(lastError)
    }
    if (!stopped) timer = setTimeout(tick, params.pollIntervalMs)
  }
  timer = setTimeout(tick, params.pollIntervalMs)

  return {
    current: () => directory,
    lastError: () => lastError,
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
