/**
 * A chain held in memory and driven by the test, handed to the explorer as its ChainSource: blocks
 * mined with chosen settlements, and reorganisations that replace the newest blocks with others (new
 * hashes, other settlements), as often and as fast as a test wants — the indexer's own reorg path
 * (parent-hash checks, rollback, re-indexing) runs exactly as on a real node.
 */
import type { BlockHeader, ChainSource } from '../../explorer/indexer/index.js'
import { PERMITTED_TRANSFER_TOPIC, type RawLog } from '../../explorer/indexer/index.js'
import type { SettlementRecord } from '../../explorer/store/index.js'
import type { Hex } from '../../wire/index.js'

/** What a settlement log carries; its block, transaction and log index come from where it is mined. */
export type ScriptedSettlement = Pick<SettlementRecord, 'token' | 'payer' | 'recipient' | 'amount' | 'fee' | 'reference' | 'domainSeparator'>

interface Block extends BlockHeader {
  logs: RawLog[]
}

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')
const hexOf = (n: number | bigint) => `0x${n.toString(16)}` as Hex

export class ScriptedChain {
  readonly contract: Hex
  #blocks: Block[] = []
  #branch = 0
  #transactions = 0

  constructor({ contract, genesisTimestamp = 1_700_000_000 }: { contract: Hex; genesisTimestamp?: number }) {
    this.contract = contract
    this.#blocks.push({ blockNumber: 0, blockHash: this.#hash(0), parentHash: `0x${'0'.repeat(64)}`, timestamp: genesisTimestamp, logs: [] })
  }

  get head(): BlockHeader {
    return this.#blocks[this.#blocks.length - 1]!
  }

  /** Appends a block holding these settlements (in log order) and returns its header. */
  mine(settlements: ScriptedSettlement[], secondsAfterParent = 12): BlockHeader {
    const parent = this.head
    const blockNumber = parent.blockNumber + 1
    const blockHash = this.#hash(blockNumber)
    const timestamp = parent.timestamp + secondsAfterParent
    const logs = settlements.map((s, i) => this.#log(s, blockNumber, blockHash, timestamp, i * 2 + 1))
    this.#blocks.push({ blockNumber, blockHash, parentHash: parent.blockHash, timestamp, logs })
    return this.head
  }

  /** Drops the newest `depth` blocks: the next blocks mined form another branch with other hashes. */
  reorg(depth: number): void {
    this.#blocks.length = Math.max(1, this.#blocks.length - depth)
    this.#branch++
  }

  source(): ChainSource {
    return {
      headBlockNumber: async () => this.head.blockNumber,
      header: async (blockNumber) => {
        const block = this.#blocks[blockNumber]
        return block && { blockNumber: block.blockNumber, blockHash: block.blockHash, parentHash: block.parentHash, timestamp: block.timestamp }
      },
      settlementLogs: async (fromBlock, toBlock) => this.#blocks.slice(fromBlock, toBlock + 1).flatMap((b) => b.logs),
      tokenInfo: async (address) => ({ address, symbol: `T${address.slice(-2)}`, decimals: 6 }),
    }
  }

  /** Block hashes carry the branch, so a replaced block never has its predecessor's hash. */
  #hash(blockNumber: number): Hex {
    return `0x${this.#branch.toString(16).padStart(8, '0')}${blockNumber.toString(16).padStart(56, '0')}`
  }

  #log(s: ScriptedSettlement, blockNumber: number, blockHash: Hex, timestamp: number, logIndex: number): RawLog {
    return {
      address: this.contract,
      topics: [PERMITTED_TRANSFER_TOPIC, s.domainSeparator, `0x${word(s.token)}`, `0x${word(s.payer)}`],
      data: `0x${word(s.recipient)}${word(s.amount.toString(16))}${word(s.fee.toString(16))}${word(s.reference)}`,
      blockNumber: hexOf(blockNumber),
      blockHash,
      blockTimestamp: hexOf(timestamp),
      transactionHash: `0x${(++this.#transactions).toString(16).padStart(64, 'e')}`,
      logIndex: hexOf(logIndex),
    }
  }
}
