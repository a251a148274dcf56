/**
 * A real explorer (uWS server, hub, REST, the query layer) over a store written beforehand with chosen
 * settlements, far more than a test could pay on anvil, and a chain source frozen at the store's head:
 * the indexer checks the head's hash, finds nothing new, and stays idle. For live-feed tests under
 * hostile clients, whose cost grows with what the store holds.
 */
import { rmSync } from 'node:fs'
import { after, before } from 'node:test'
import { explorerOptionsFromEnv } from '../../src/config/explorer-options.js'
import type { ChainSource } from '../../src/explorer/indexer/chain-source.js'
import { commitBatch, type IndexingStep } from '../../src/explorer/store/commit-batch.js'
import { openStore } from '../../src/explorer/store/open-store.js'
import type { SettlementRecord } from '../../src/explorer/store/record.js'
import { startExplorer, type RunningExplorer } from '../../src/explorer/start-explorer.js'
import type { Hex } from '../../src/wire/settlement.js'
import { tempDataDir } from '../../src/devnet/testing/index.js'
import { clientPool, type ClientPool } from './live-client.js'

const CONTRACT = '0x5e771e0000000000000000000000000000000013' as Hex
const hex = (prefix: number, i: number, bytes: number) => `0x${prefix.toString(16)}${i.toString(16).padStart(bytes * 2 - 2, '0')}` as Hex

export const seededAddress = (prefix: number, i: number) => hex(prefix, i, 20)

/** What a seeded settlement varies; the rest is made up from its position. */
export type SeededSettlement = Pick<SettlementRecord, 'token' | 'payer' | 'recipient'>

export interface SeededExplorer extends ClientPool {
  explorer: RunningExplorer
}

/**
 * Registers before/after hooks: a store holding `settlements` (in chain order, `perBlock` to a block,
 * from block 1) and an explorer on it with `env` overrides.
 */
export function useSeededExplorer({ settlements, perBlock = 20, env = {} }: { settlements: SeededSettlement[]; perBlock?: number; env?: Record<string, string> }): SeededExplorer {
  const dataDir = tempDataDir()
  const fixture = clientPool(() => fixture.explorer.url) as SeededExplorer
  before(async () => {
    const store = openStore({ path: dataDir, noSync: true })
    let head = { blockNumber: 0, blockHash: blockHash(0) }
    // Many blocks to a step, as a backfill commits them: one transaction per block took twice the CPU.
    const perStep = Math.max(perBlock, STEP_SETTLEMENTS - (STEP_SETTLEMENTS % perBlock))
    for (let i = 0; i < settlements.length; i += perStep) {
      const steps: IndexingStep[] = []
      for (let j = i; j < Math.min(i + perStep, settlements.length); j += perBlock) steps.push(block(settlements.slice(j, j + perBlock), j, j / perBlock + 1))
      head = steps.at(-1)!.head
      await commitBatch(store, { records: steps.flatMap((step) => step.records), blocks: steps.flatMap((step) => step.blocks), head })
    }
    await store.close()
    const options = explorerOptionsFromEnv({
      SETTLEMENT_CONTRACT: CONTRACT,
      RPC_URL: 'http://127.0.0.1:9',
      DATA_DIR: dataDir,
      EXPLORER_PORT: '0',
      LOG_LEVEL: 'error',
      ...env,
    })
    fixture.explorer = await startExplorer(options, { source: frozenSource(head) })
  })
  after(async () => {
    await fixture.closeClients()
    await fixture.explorer?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return fixture
}

/** Settlements committed in one step while the store is written. */
const STEP_SETTLEMENTS = 2_000

const blockHash = (blockNumber: number) => hex(0xb1, blockNumber, 32)

function block(settlements: SeededSettlement[], first: number, blockNumber: number): IndexingStep {
  const timestamp = 1_700_000_000 + blockNumber * 12
  const records: SettlementRecord[] = settlements.map((s, i) => ({
    ...s,
    blockNumber,
    logIndex: i,
    blockHash: blockHash(blockNumber),
    timestamp,
    txHash: hex(0x7e, first + i, 32),
    amount: 1_000_000n,
    fee: 2_500_000n,
    reference: `0x${(first + i + 1).toString(16).padStart(32, '0')}${'0'.repeat(32)}` as Hex,
    domainSeparator: `0x${s.token.slice(2).padEnd(64, 'd')}` as Hex,
  }))
  return { records, blocks: [{ blockNumber, blockHash: blockHash(blockNumber), timestamp }], head: { blockNumber, blockHash: blockHash(blockNumber) } }
}

/** A chain whose head is the store's: nothing to index, nothing to roll back. */
function frozenSource(head: { blockNumber: number; blockHash: Hex }): ChainSource {
  return {
    headBlockNumber: async () => head.blockNumber,
    header: async (blockNumber) =>
      blockNumber > head.blockNumber ? undefined : { blockNumber, blockHash: blockHash(blockNumber), parentHash: blockHash(Math.max(0, blockNumber - 1)), timestamp: 1_700_000_000 + blockNumber * 12 },
    settlementLogs: async () => [],
    tokenInfo: async (address) => ({ address, symbol: `T${address.slice(-2)}`, decimals: 6 }),
  }
}
