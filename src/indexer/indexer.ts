/**
 * The indexer: backfills settlement logs in adaptive block ranges, then follows the head block by
 * block, checking each block's parent hash against what it indexed. A mismatch rolls the store back
 * to the common ancestor and re-indexes. RPC failures never stop it: it backs off and retries, and
 * the API keeps serving what is committed.
 */
import { BaseError } from 'viem'
import type { Logger } from '../observability/logger.js'
import type { Metrics } from '../observability/metrics.js'
import type { IndexingStep } from '../store/commit-batch.js'
import { commitBatch } from '../store/commit-batch.js'
import { readHead, readTokens, type IndexedHead } from '../store/meta.js'
import type { Store } from '../store/open-store.js'
import type { SettlementRecord, StoredSettlement, TokenInfo } from '../store/record.js'
import { rollbackAbove, storedBlocksDownFrom } from '../store/rollback.js'
import type { Hex } from '../types/settlement.js'
import { isRangeTooLarge, type BlockHeader, type ChainSource } from './chain-source.js'
import { decodeSettlementLog, type DecodedSettlementLog } from './decode-settlement-log.js'
import { Progress } from './progress.js'

export interface IndexerListener {
  committed(settlements: StoredSettlement[]): void
  removed(settlements: StoredSettlement[]): void
}

export interface IndexerOptions {
  store: Store
  source: ChainSource
  startBlock: number
  confirmations: number
  pollIntervalMs: number
  logger: Logger
  metrics: Metrics
  listener?: IndexerListener
  /** Blocks per `eth_getLogs` at start; adapts between 1 and `maxRange`. */
  initialRange?: number
  maxRange?: number
}

export interface IndexerStatus {
  chainHead: number | undefined
  indexedBlock: number
  /** Confirmed blocks not yet indexed; `undefined` until the chain answered once. */
  lag: number | undefined
  lastError: string | undefined
}

interface FetchedRange {
  from: number
  to: number
  decoded: DecodedSettlementLog[]
  headers: Map<number, BlockHeader>
  head: IndexedHead
}

/** Within this many blocks of the confirmed head the indexer goes block by block with parent checks. */
const REALTIME_WINDOW = 64
const MAX_BACKOFF_MS = 30_000
/** Backfill ranges aim at this many logs: well under common node caps (10k), large enough to batch. */
const LOGS_PER_RANGE = 5_000

export class Indexer {
  #o: IndexerOptions
  #range: number
  #chainHead: number | undefined
  #lastError: string | undefined
  #stopped = false
  #running: Promise<void> | undefined
  #wake: (() => void) | undefined
  #knownTokens: Set<Hex>
  #progress: Progress | undefined
  #prefetched: { from: number; range: Promise<FetchedRange> } | undefined
  #verifiedOnce = false
  #count
  #reorgs
  #rpcErrors

  constructor(options: IndexerOptions) {
    this.#o = options
    this.#range = options.initialRange ?? 1000
    this.#knownTokens = new Set(readTokens(options.store).keys())
    this.#count = options.metrics.counter('settlements_indexed_total', 'Settlements committed by the indexer')
    this.#reorgs = options.metrics.counter('reorgs_total', 'Chain reorganisations rolled back')
    this.#rpcErrors = options.metrics.counter('rpc_errors_total', 'Failed indexing steps (RPC or node errors)')
    options.metrics.collected('indexed_block', 'Last indexed block', () => this.indexedBlock())
    options.metrics.collected('chain_head_block', 'Chain head seen by the indexer', () => this.#chainHead ?? -1)
  }

  start(): void {
    this.#running ??= this.#loop()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#wake?.()
    await this.#running
  }

  indexedBlock(): number {
    return readHead(this.#o.store)?.blockNumber ?? this.#o.startBlock - 1
  }

  status(): IndexerStatus {
    const indexedBlock = this.indexedBlock()
    const confirmed = this.#chainHead === undefined ? undefined : this.#chainHead - this.#o.confirmations
    return {
      chainHead: this.#chainHead,
      indexedBlock,
      lag: confirmed === undefined ? undefined : Math.max(0, confirmed - indexedBlock),
      lastError: this.#lastError,
    }
  }

  async #loop(): Promise<void> {
    let backoff = 250
    while (!this.#stopped) {
      try {
        const progressed = await this.#tick()
        this.#lastError = undefined
        backoff = 250
        if (!progressed) await this.#sleep(this.#o.pollIntervalMs)
      } catch (error) {
        this.#rpcErrors()
        this.#lastError = describeError(error)
        this.#o.logger.warn('indexing step failed; retrying', { error: this.#lastError, retryInMs: backoff })
        await this.#sleep(backoff)
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.#wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  /** One step; resolves `true` when it made progress and the next step should follow at once. */
  async #tick(): Promise<boolean> {
    const { source, startBlock, confirmations } = this.#o
    this.#chainHead = await source.headBlockNumber()
    const target = this.#chainHead - confirmations
    const stored = readHead(this.#o.store)
    // A head below the start block is the empty position left by a full rollback: nothing to link to.
    const head = stored && stored.blockNumber >= startBlock ? stored : undefined
    const indexed = stored?.blockNumber ?? startBlock - 1

    if (head && !this.#verifiedOnce) {
      // The data directory may predate a restarted chain (a fresh devnet): check before extending it.
      this.#verifiedOnce = true
      const current = await source.header(head.blockNumber)
      if (current?.blockHash !== head.blockHash) return this.#reorg(head)
    }

    if (target - indexed > REALTIME_WINDOW) return this.#backfill(indexed + 1, target)
    if (head && target <= indexed) {
      // Nothing new to index, but the indexed tip may have been replaced (same height or shorter chain).
      const current = await source.header(indexed)
      if (current?.blockHash !== head.blockHash) return this.#reorg(head)
      this.#progress = undefined
      return false
    }
    if (target <= indexed) return false
    return this.#followHead(head, indexed + 1, target)
  }

  /**
   * Far from the head: one range per step. The next range is fetched while this one commits, so the
   * node's work and ours overlap; a stale prefetch (after an error or a rollback) is simply dropped.
   */
  async #backfill(from: number, target: number): Promise<boolean> {
    const { logger } = this.#o
    this.#progress ??= new Progress(logger, from - 1)
    const ahead = this.#prefetched
    this.#prefetched = undefined
    let range: FetchedRange
    try {
      range = ahead?.from === from ? await ahead.range : await this.#fetchRange(from, Math.min(target, from + this.#range - 1))
    } catch (error) {
      if (!isRangeTooLarge(error) || this.#range === 1) throw error
      this.#range = Math.max(1, Math.floor(this.#range / 2))
      logger.debug('range too large; shrinking', { range: this.#range })
      return true
    }
    this.#resize(range)
    if (target - range.to > REALTIME_WINDOW) {
      const next = range.to + 1
      const prefetch = this.#fetchRange(next, Math.min(target, next + this.#range - 1))
      prefetch.catch(() => {})
      this.#prefetched = { from: next, range: prefetch }
    }
    await this.#commit(range.decoded, range.headers, range.head)
    this.#progress.step(range.to, target, range.decoded.length)
    if (target - range.to <= REALTIME_WINDOW) logger.info('backfill done; following the head', { block: range.to, ...this.#progress.summary() })
    return true
  }

  async #fetchRange(from: number, to: number): Promise<FetchedRange> {
    const { source } = this.#o
    const [logs, tip] = await Promise.all([source.settlementLogs(from, to), source.header(to)])
    if (!tip) throw new Error(`block ${to} is missing from the node`)
    const decoded = logs.filter((log) => !log.removed).map(decodeSettlementLog)
    return { from, to, decoded, headers: await this.#eventHeaders(decoded), head: { blockNumber: to, blockHash: tip.blockHash } }
  }

  /** Sizes the next range so that it returns about LOGS_PER_RANGE logs, changing at most 2× per step. */
  #resize(range: FetchedRange): void {
    const blocks = range.to - range.from + 1
    const wanted = Math.floor((blocks * LOGS_PER_RANGE) / Math.max(1, range.decoded.length))
    this.#range = Math.max(1, Math.min(wanted, this.#range * 2, this.#o.maxRange ?? 100_000), Math.floor(this.#range / 2))
  }

  /** Near the head: block by block, each one's parent hash checked against the block before it. */
  async #followHead(head: IndexedHead | undefined, from: number, target: number): Promise<boolean> {
    const { source } = this.#o
    const decoded: DecodedSettlementLog[] = []
    const headers = new Map<number, BlockHeader>()
    let parent = head
    for (let b = from; b <= target; b++) {
      const header = await source.header(b)
      if (!header) break
      if (parent && header.parentHash !== parent.blockHash) {
        if (headers.size === 0) return this.#reorg(parent)
        break // commit what links up; the next step meets the fork and rolls back
      }
      const logs = await source.settlementLogs(b, b)
      for (const log of logs) {
        const settlement = decodeSettlementLog(log)
        if (settlement.blockHash !== header.blockHash) throw new Error(`block ${b} changed while it was read`)
        decoded.push(settlement)
      }
      headers.set(b, header)
      parent = header
    }
    if (!parent || parent === head) return false
    await this.#commit(decoded, headers, { blockNumber: parent.blockNumber, blockHash: parent.blockHash })
    return true
  }

  async #eventHeaders(decoded: DecodedSettlementLog[]): Promise<Map<number, BlockHeader>> {
    const headers = new Map<number, BlockHeader>()
    const missing = new Set<number>()
    for (const log of decoded) {
      if (log.blockTimestamp !== undefined) {
        headers.set(log.blockNumber, { blockNumber: log.blockNumber, blockHash: log.blockHash, parentHash: '0x', timestamp: log.blockTimestamp })
      } else missing.add(log.blockNumber)
    }
    const fetched = await mapLimit([...missing], 16, (b) => this.#o.source.header(b))
    for (const header of fetched) {
      if (!header) throw new Error('a block with settlements is missing from the node')
      headers.set(header.blockNumber, header)
    }
    return headers
  }

  async #commit(decoded: DecodedSettlementLog[], headers: Map<number, BlockHeader>, head: IndexedHead): Promise<void> {
    const records: SettlementRecord[] = decoded.map((log) => ({ ...log, timestamp: headers.get(log.blockNumber)!.timestamp }))
    const step: IndexingStep = {
      records,
      blocks: [...new Set(decoded.map((log) => log.blockNumber))].map((b) => headers.get(b)!),
      head,
      tokens: await this.#newTokens(decoded),
    }
    const committed = await commitBatch(this.#o.store, step)
    for (const token of step.tokens ?? []) this.#knownTokens.add(token.address)
    this.#count(committed.length)
    if (committed.length > 0) this.#o.listener?.committed(committed)
  }

  async #newTokens(decoded: DecodedSettlementLog[]): Promise<TokenInfo[]> {
    const fresh = [...new Set(decoded.map((log) => log.token))].filter((t) => !this.#knownTokens.has(t))
    return Promise.all(fresh.map((address) => this.#o.source.tokenInfo(address)))
  }

  /** The indexed tip is no longer on the chain: find the newest stored block that still is, roll back to it. */
  async #reorg(head: IndexedHead): Promise<boolean> {
    const { source, store, startBlock, logger } = this.#o
    let ancestor: IndexedHead | undefined
    for (const stored of storedBlocksDownFrom(store, head.blockNumber)) {
      const onChain = await source.header(stored.blockNumber)
      if (onChain?.blockHash === stored.blockHash) {
        ancestor = stored
        break
      }
    }
    if (!ancestor) {
      const before = startBlock > 0 ? await source.header(startBlock - 1) : undefined
      ancestor = { blockNumber: startBlock - 1, blockHash: before?.blockHash ?? `0x${'0'.repeat(64)}` }
    }
    const removed = await rollbackAbove(store, ancestor)
    this.#reorgs()
    logger.warn('chain reorganisation rolled back', { from: head.blockNumber, to: ancestor.blockNumber, removedSettlements: removed.length })
    if (removed.length > 0) this.#o.listener?.removed(removed)
    return true
  }
}

/** One line: viem's short message and its details (the URL, the node's reason) when it has them. */
function describeError(error: unknown): string {
  if (error instanceof BaseError) return [error.shortMessage, error.details].filter(Boolean).join(': ')
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error)
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
