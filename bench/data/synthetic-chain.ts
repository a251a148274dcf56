/**
 * A synthetic settlement chain with random access by block: the store builder and the fake JSON-RPC
 * node read the same chain, so a cached store is a prefix of what the node serves and the explorer
 * can keep following it. Each block's content is a pure function of (seed, block number); the
 * address helpers are the test suite's, so test and bench data look alike.
 */
import type { BlockHeader, IndexingStep } from '../../src/explorer/store/index.js'
import type { SettlementRecord, TokenInfo } from '../../src/explorer/store/index.js'
import type { Hex } from '../../src/wire/index.js'
import { syntheticAcquirer, syntheticPayer, syntheticRecipient, syntheticToken } from '../../src/devnet/testing/index.js'

export interface ChainShape {
  seed: number
  tokens: number
  payers: number
  recipients: number
  acquirers: number
  /** Share of settlements with an acquirer, 0..1. */
  acquirerShare: number
  /** Settlements per block are uniform in 0..maxPerBlock. */
  maxPerBlock: number
  /** First block that may hold settlements. */
  firstBlock: number
  firstTimestamp: number
  blockSeconds: number
}

export const DEFAULT_SHAPE: ChainShape = {
  seed: 1,
  tokens: 3,
  payers: 200_000,
  recipients: 5_000,
  acquirers: 50,
  acquirerShare: 0.3,
  maxPerBlock: 40,
  firstBlock: 1_000,
  firstTimestamp: 1_700_000_000,
  blockSeconds: 2,
}

export const BENCH_CONTRACT = '0x5e771e0000000000000000000000000000000001' as Hex

/** A 32-bit mix (murmur3 finalizer): cheap, and good enough to decorrelate neighbouring blocks. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

function random(seed: number) {
  let state = seed || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

const word = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0')

export const blockHashOf = (blockNumber: number) => `0x${'b1'}${word(blockNumber, 31)}` as Hex

export const tokenInfoOf = (i: number): TokenInfo => ({ address: syntheticToken(i), symbol: `USD${i}`, decimals: 6 })

export class SyntheticChain {
  constructor(readonly shape: ChainShape = DEFAULT_SHAPE) {}

  settlementsIn(blockNumber: number): number {
    if (blockNumber < this.shape.firstBlock) return 0
    return mix(this.shape.seed, blockNumber) % (this.shape.maxPerBlock + 1)
  }

  header(blockNumber: number): BlockHeader & { parentHash: Hex } {
    return {
      blockNumber,
      blockHash: blockHashOf(blockNumber),
      parentHash: blockNumber === 0 ? (`0x${'0'.repeat(64)}` as Hex) : blockHashOf(blockNumber - 1),
      timestamp: this.shape.firstTimestamp + (blockNumber - this.shape.firstBlock) * this.shape.blockSeconds,
    }
  }

  /** The settlements of one block, in log order. */
  records(blockNumber: number): SettlementRecord[] {
    const { seed, tokens, payers, recipients, acquirers, acquirerShare } = this.shape
    const { blockHash, timestamp } = this.header(blockNumber)
    const count = this.settlementsIn(blockNumber)
    const records: SettlementRecord[] = []
    for (let i = 0; i < count; i++) {
      const id = blockNumber * 64 + i
      const rnd = random(mix(seed + 1, id))
      const pick = (n: number) => Math.floor(rnd() * n)
      const token = syntheticToken(pick(tokens))
      const acquirer = rnd() < acquirerShare ? syntheticAcquirer(pick(acquirers)).slice(2) : '0'.repeat(32)
      records.push({
        blockNumber,
        logIndex: i * 3 + 1,
        blockHash,
        timestamp,
        txHash: `0x7e${word(id, 31)}`,
        token,
        payer: syntheticPayer(pick(payers)),
        recipient: syntheticRecipient(pick(recipients)),
        amount: BigInt(1 + pick(1_000_000_000)),
        fee: 2_500_000n + BigInt(pick(100_000)),
        reference: `0x${word(id, 16)}${acquirer}`,
        domainSeparator: `0x${token.slice(2).padEnd(64, 'd')}`,
      })
    }
    return records
  }

  /** The first block at which the chain holds at least `settlements`, and the exact count there. */
  headFor(settlements: number): { head: number; count: number } {
    let count = 0
    let block = this.shape.firstBlock
    for (; ; block++) {
      count += this.settlementsIn(block)
      if (count >= settlements) return { head: block, count }
    }
  }

  /**
   * Indexing steps of about `perStep` settlements each, from `fromBlock` through `toBlock`; the first
   * step also carries the token metadata, as the indexer's first step would.
   */
  *steps(fromBlock: number, toBlock: number, perStep: number): Generator<IndexingStep> {
    let records: SettlementRecord[] = []
    let blocks: BlockHeader[] = []
    let tokens: TokenInfo[] | undefined = Array.from({ length: this.shape.tokens }, (_, i) => tokenInfoOf(i))
    for (let b = fromBlock; b <= toBlock; b++) {
      const inBlock = this.records(b)
      if (inBlock.length > 0) {
        records.push(...inBlock)
        blocks.push(this.header(b))
      }
      if (records.length >= perStep || b === toBlock) {
        yield { records, blocks, head: { blockNumber: b, blockHash: blockHashOf(b) }, tokens }
        tokens = undefined
        records = []
        blocks = []
      }
    }
  }
}
