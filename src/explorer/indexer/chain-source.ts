/**
 * What the indexer reads from the chain, over the chain client (RPC_URL's nodes, failing over): the
 * head, block headers, settlement logs of one contract, and token metadata. Its errors are classified
 * in node-errors.ts.
 */
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, erc20Abi, numberToHex } from 'viem'
import { createChainClient } from '../../chain/index.js'
import type { RpcEndpoints } from '../../config/index.js'
import { BaseError as ProjectError } from '../../errors/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { TokenInfo } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import { PERMITTED_TRANSFER_TOPIC, type RawLog } from './decode-settlement-log.js'
import { classifyNodeError } from './node-errors.js'

export interface BlockHeader {
  blockNumber: number
  blockHash: Hex
  parentHash: Hex
  timestamp: number
}

export interface ChainSource {
  headBlockNumber(): Promise<number>
  /** `undefined` when the chain has no such block (it got shorter). */
  header(blockNumber: number): Promise<BlockHeader | undefined>
  settlementLogs(fromBlock: number, toBlock: number): Promise<RawLog[]>
  /** The same logs as the node's `eth_getLogs` response bytes, for scan-logs.ts; sources that can, offer it. */
  settlementLogsBody?(fromBlock: number, toBlock: number): Promise<Buffer>
  tokenInfo(address: Hex): Promise<TokenInfo>
}

export interface ChainSourceParams extends RpcEndpoints {
  /** When given, a node serving another chain is never read. */
  chainId?: number
  contract: Hex
  timeoutMs?: number
  log?: Logger
}

export function createChainSource({ contract, timeoutMs = 10_000, ...clientParams }: ChainSourceParams): ChainSource {
  const logsParams = (fromBlock: number, toBlock: number) => [
    { address: contract, topics: [PERMITTED_TRANSFER_TOPIC], fromBlock: numberToHex(fromBlock), toBlock: numberToHex(toBlock) },
  ]
  // The indexer retries itself (node-errors.ts); another node is tried at once when one fails.
  const client = createChainClient({ ...clientParams, timeoutMs, retryCount: 0, batchSize: false })
  return {
    headBlockNumber: async () => Number(await client.getBlockNumber({ cacheTime: 0 })),
    async header(blockNumber) {
      const block = (await client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(blockNumber), false] })) as {
        hash: Hex
        parentHash: Hex
        timestamp: Hex
      } | null
      if (!block) return undefined
      return { blockNumber, blockHash: block.hash.toLowerCase() as Hex, parentHash: block.parentHash.toLowerCase() as Hex, timestamp: Number(block.timestamp) }
    },
    async settlementLogs(fromBlock, toBlock) {
      return (await client.request({ method: 'eth_getLogs', params: logsParams(fromBlock, toBlock) } as never)) as RawLog[]
    },
    // Beside viem's parsing, with the fetch it uses: viem would parse the body into objects, which is what
    // scanning the bytes avoids. Errors in the body are the scanner's to report.
    settlementLogsBody: (fromBlock, toBlock) => client.transport.requestBytes('eth_getLogs', logsParams(fromBlock, toBlock), timeoutMs),
    async tokenInfo(address) {
      // A token without symbol()/decimals() gets a stand-in; a failing RPC call is retried later instead.
      const read = <T>(functionName: 'symbol' | 'decimals', fallback: T) =>
        client.readContract({ address, abi: erc20Abi, functionName }).then(
          (v) => v as T,
          (error: unknown) => {
            if (isRevert(error)) return fallback
            throw error
          },
        )
      const [symbol, decimals] = await Promise.all([read('symbol', ''), read('decimals', 0)])
      return { address, symbol: symbol || `${address.slice(0, 10)}`, decimals: Number(decimals) }
    },
  }
}

const isRevert = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError) !== null

/** One line: viem's short message and its details (the URL, the node's reason) when it has them. */
export function describeError(error: unknown): string {
  if (error instanceof BaseError) return [error.shortMessage, error.details].filter(Boolean).join(': ')
  if (error instanceof ProjectError && error.cause !== undefined) return `${error.message}: ${describeError(error.cause)}`
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error)
}

/** `source` with every failed read classified: the node's failures become retryable `NodeReadError`s. */
export function classifiedReads(source: ChainSource): ChainSource {
  const classified =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>, range: (...args: A) => { from: number; to: number } | undefined) =>
    (...args: A): Promise<R> =>
      read(...args).catch((error: unknown) => Promise.reject(classifyNodeError(error, range(...args))))
  const noRange = () => undefined
  return {
    headBlockNumber: classified(() => source.headBlockNumber(), noRange),
    header: classified((b: number) => source.header(b), (b) => ({ from: b, to: b })),
    settlementLogs: classified((from: number, to: number) => source.settlementLogs(from, to), (from, to) => ({ from, to })),
    ...(source.settlementLogsBody && { settlementLogsBody: classified((from: number, to: number) => source.settlementLogsBody!(from, to), (from, to) => ({ from, to })) }),
    tokenInfo: classified((address: Parameters<ChainSource['tokenInfo']>[0]) => source.tokenInfo(address), noRange),
  }
}
