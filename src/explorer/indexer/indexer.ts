/**
 * The indexer: backfills settlement logs in adaptive block ranges, then follows the head block by
 * block, checking each block's parent hash against what it indexed. A mismatch rolls the store back
 * to the common ancestor and re-indexes. RPC failures never stop it: it backs off and retries, and
 * the API keeps serving what is committed.
 */
import type { Logger } from '../../platform/observability/index.js'
import type { Metrics } from '../../platform/observability/index.js'
import { commitEncoded } from '../store/index.js'
import type { EncodedBatch } from '../store/index.js'
import { readHead, readTokens, type IndexedHead } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { StoredSettlement, TokenInfo } from '../store/index.js'
import { decodeHexKey, indexKeyFromString, rollbackAbove, storedBlocksDownFrom } from '../store/index.js'
import type { Hex } from '../../wire/index.js'
import { classifiedReads, describeError, type BlockHeader, type ChainSource } from './chain-source.js'
import { classifyNodeError, NodeReadError, RangeTooLargeError } from './node-errors.js'
import { causeChain, isRetryable } from '../../errors/index.js'
import { decodeSettlementLog, type DecodedSettlementLog } from './decode-settlement-log.js'
import { fetchRange, toBatch } from './fetch-range.js'
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
  /** Fetches and encodes a backfill range elsewhere (the indexing pool); default: on this thread from `source`. */
  fetchRange?: (from: number, to: number) => Promise<EncodedBatch>
}

export interface IndexerStatus {
  chainHead: number | undefined
  indexedBlock: number
  /** Confirmed blocks not yet indexed; `undefined` until the chain answered once. */
  lag: number | undefined
  lastError: string | undefined
}

/** A backfill range asked for; `batch` is set once it has arrived. */
interface InFlightRange {
  from: number
  to: number
  fetched: Promise<EncodedBatch>
  batch?: EncodedBatch
}

/** Within this many blocks of the confirmed head the indexer goes block by block with parent checks. */
const REALTIME_WINDOW = 64
const MAX_BACKOFF_MS = 30_000
/** Backfill ranges aim at this many logs: well under common node caps (10k), large enough to batch. */
const LOGS_PER_RANGE = 5_000
/**
 * Ranges asked for ahead of the one being committed: the node, the pool and the commit all work at
 * once, and ranges that arrived while a commit ran are committed together with the next. More (6,
 * with 4 per pool thread) cost the node and the pool more CPU on 2 cores and were slower (bench).
 */
const RANGES_IN_FLIGHT = 3
/**
 * At most this many settlements per backfill transaction: a larger one writes each index page it
 * touches once for more entries, and syncs once; bounded for memory and for the listeners' bursts.
 * Each page a transaction touches is copied, and LMDB reuses the old copies only a commit or two
 * later, so the file keeps about two transactions' worth of free pages (300 bytes per settlement at 1M,
 * 40 at 10M). Smaller transactions keep fewer (71 at 1M with 1,000 per transaction) but write every
 * random-order index page once per settlement instead of once per few: the same backfill ran at 4,305
 * settlements/s instead of 7,003, 159 µs of CPU each instead of 94 (bench/RESULTS.md, store layout 7).
 * A snapshot (`npm run explorer -- snapshot`) is the compacted file, free pages left out.
 */
const SETTLEMENTS_PER_COMMIT = 50_000

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
  #inFlight: InFlightRange[] = []
  #fetchRange: (from: number, to: number) => Promise<EncodedBatch>
  /** `options.source` with its failures classified: a read the node failed is retried, anything else stops indexing. */
  #source: ChainSource
  #verifiedOnce = false
  #count
  #reorgs
  #rpcErrors

  constructor(options: IndexerOptions) {
    this.#o = options
    this.#source = classifiedReads(options.source)
    this.#range = options.initialRange ?? 1000
    this.#fetchRange = options.fetchRange ?? ((from, to) => fetchRange(options.source, from, to))
    this.#knownTokens = new Set(readTokens(options.store).keys())
    this.#count = options.metrics.counter('settlements_indexed_total', 'Settlements committed by the indexer')
    this.#reorgs = options.metrics.counter('reorgs_total', 'Chain reorganisations rolled back')
    this.#rpcErrors = options.metrics.counter('rpc_errors_total', 'Failed indexing steps (RPC or node errors)')
    options.metrics.collected('indexed_block', 'Last indexed block', () => this.indexedBlock())
    options.metrics.collected('chain_head_block', 'Chain head seen by the indexer', () => this.#chainHead ?? -1)
    options.metrics.collected('indexer_lag_blocks', 'Confirmed blocks not yet indexed (-1 until the node answered once)', () => this.status().lag ?? -1)
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
        if (!isRetryable(error)) {
          // Retrying would fail the same way forever; stop where the fault shows (/ready, the log).
          this.#o.logger.error('indexing stopped: the failure does not pass with a retry', { error, causes: causeChain(error) })
          return
        }
        this.#o.logger.warn('indexing step failed; retrying', { error, causes: causeChain(error), retryInMs: backoff })
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
    const { startBlock, confirmations } = this.#o
    const source = this.#source
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
   * Far from the head: the next range, with whichever ranges after it have arrived, commits as one
   * step, while the ranges after those are being fetched and encoded. Ranges left in flight by an
   * error or a rollback start elsewhere than the indexed head and are dropped.
   */
  async #backfill(from: number, target: number): Promise<boolean> {
    const { logger } = this.#o
    this.#progress ??= new Progress(logger, from - 1)
    if (this.#inFlight[0]?.from !== from) this.#inFlight = []
    this.#askAhead(from, target)
    const first = this.#inFlight[0]!
    let batch: EncodedBatch
    try {
      batch = await first.fetched
    } catch (error) {
      this.#inFlight = []
      if (!(error instanceof RangeTooLargeError) || this.#range === 1) throw error
      this.#range = Math.max(1, Math.floor(this.#range / 2))
      logger.debug('range too large; shrinking', { range: this.#range })
      return true
    }
    const batches = [batch]
    let settlements = batch.count
    this.#resize(first.to - first.from + 1, batch.count)
    this.#inFlight.shift()
    for (let next = this.#inFlight[0]; next?.batch && settlements + next.batch.count <= SETTLEMENTS_PER_COMMIT; next = this.#inFlight[0]) {
      batches.push(next.batch)
      settlements += next.batch.count
      this.#resize(next.to - next.from + 1, next.batch.count)
      this.#inFlight.shift()
    }
    const to = batches.at(-1)!.head.blockNumber
    this.#askAhead(to + 1, target)
    await this.#commit(batches)
    this.#progress.step(to, target, settlements)
    if (target - to <= REALTIME_WINDOW) logger.info('backfill done; following the head', { block: to, ...this.#progress.summary() })
    return true
  }

  /** Asks for ranges from `from` on until RANGES_IN_FLIGHT are out, none starting within the realtime window. */
  #askAhead(from: number, target: number): void {
    let last = this.#inFlight.at(-1)?.to ?? from - 1
    while (this.#inFlight.length < RANGES_IN_FLIGHT && target - last > REALTIME_WINDOW) {
      const to = Math.min(target, last + this.#range)
      const span = { from: last + 1, to }
      const range: InFlightRange = { ...span, fetched: this.#fetchRange(span.from, to).catch((error: unknown) => Promise.reject(classifyNodeError(error, span))) }
      range.fetched.then(
        (batch) => (range.batch = batch),
        () => {},
      )
      this.#inFlight.push(range)
      last = to
    }
  }

  /** Sizes the next ranges so that each returns about LOGS_PER_RANGE logs, changing at most 2× per range. */
  #resize(blocks: number, settlements: number): void {
    const wanted = Math.floor((blocks * LOGS_PER_RANGE) / Math.max(1, settlements))
    this.#range = Math.max(1, Math.min(wanted, this.#range * 2, this.#o.maxRange ?? 100_000), Math.floor(this.#range / 2))
  }

  /** Near the head: block by block, each one's parent hash checked against the block before it. */
  async #followHead(head: IndexedHead | undefined, from: number, target: number): Promise<boolean> {
    const source = this.#source
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
        if (settlement.blockHash !== header.blockHash) throw new NodeReadError(`block ${b} changed while it was read`, { details: { block: b }, retryable: true })
        decoded.push(settlement)
      }
      headers.set(b, header)
      parent = header
    }
    if (!parent || parent === head) return false
    await this.#commit([toBatch(decoded, headers, { blockNumber: parent.blockNumber, blockHash: parent.blockHash })])
    return true
  }

  async #commit(batches: EncodedBatch[]): Promise<void> {
    const tokens = await this.#newTokens(batches)
    const committed = await commitEncoded(this.#o.store, batches, tokens)
    for (const token of tokens) this.#knownTokens.add(token.address)
    this.#count(committed.length)
    if (committed.length > 0) this.#o.listener?.committed(committed)
  }

  async #newTokens(batches: EncodedBatch[]): Promise<TokenInfo[]> {
    const keys = batches.flatMap((batch) => batch.counted.find((c) => c.field === 'token')?.keys ?? [])
    const seen = keys.map((key) => decodeHexKey(indexKeyFromString(key)))
    const fresh = [...new Set(seen)].filter((t) => !this.#knownTokens.has(t))
    return Promise.all(fresh.map((address) => this.#source.tokenInfo(address)))
  }

  /** The indexed tip is no longer on the chain: find the newest stored block that still is, roll back to it. */
  async #reorg(head: IndexedHead): Promise<boolean> {
    const { store, startBlock, logger } = this.#o
    const source = this.#source
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
    this.#inFlight = []
    const removed = await rollbackAbove(store, ancestor)
    this.#reorgs()
    logger.warn('chain reorganisation rolled back', { from: head.blockNumber, to: ancestor.blockNumber, removedSettlements: removed.length })
    if (removed.length > 0) this.#o.listener?.removed(removed)
    return true
  }
}
