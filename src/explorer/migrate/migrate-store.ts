/**
 * `npm run explorer -- migrate <new dir>`: converts the layout-6 store in DATA_DIR into a layout-7 store
 * in a new directory, beside the older explorer still serving from DATA_DIR (read-only, as a snapshot
 * reads). The settlements are read from the old store, not from a node: a conversion runs at the store's
 * own commit rate, and the new store resumes indexing from the old one's head. The old directory is left
 * as it was until the operator switches. Progress (position, rate, ETA) is logged every few seconds.
 */
import { existsSync, readdirSync } from 'node:fs'
import type { Logger } from '../../platform/observability/index.js'
import { blockEndPk, claimIdentity, commitBatch, LOWEST_PK, openStore, readCount, readHead, STORE_LAYOUT, StoreError, type BlockHeader, type IndexedHead, type SettlementRecord } from '../store/index.js'
import { countOf, headOf, identityOf, layoutOf, openLayout6, settlementsFrom, tokensOf } from './read-layout-6.js'

/** Settlements per commit: whole blocks, about this many (store layout 7's commits cost the same per settlement from a few thousand up). */
const STEP_SETTLEMENTS = 5_000
const PROGRESS_EVERY_MS = 5_000
const STORE_FILES = new Set(['data.mdb', 'lock.mdb'])

export interface MigrateOptions {
  from: string
  to: string
  log: Logger
}

export interface Migrated {
  settlements: number
  head: IndexedHead
  seconds: number
}

export async function migrateStore({ from, to, log }: MigrateOptions): Promise<Migrated> {
  if (!existsSync(from)) throw new StoreError(`${from} holds no explorer store`)
  const old = openLayout6(from)
  const started = performance.now()
  try {
    const layout = layoutOf(old)
    if (layout !== 6) throw new StoreError(`${from} holds store layout ${layout}: only layout 6 converts to ${STORE_LAYOUT} (an older one is indexed again from the chain)`)
    const head = headOf(old)
    const identity = identityOf(old)
    if (!head || !identity) throw new StoreError(`${from} has indexed nothing: start the explorer on an empty directory instead`)
    const total = countOf(old)
    if (existsSync(to) && readdirSync(to).some((file) => !STORE_FILES.has(file))) throw new StoreError(`${to} holds other files: a conversion writes a store of its own`)
    const store = openStore({ path: to })
    try {
      // A conversion that was stopped goes on from where its last commit left it.
      const done = readHead(store)
      await claimIdentity(store, identity)
      let converted = readCount(store)
      let lastLog = performance.now()
      let tokens = done ? [] : tokensOf(old)
      const commit = async (records: SettlementRecord[], stepHead: IndexedHead) => {
        const blocks = new Map<number, BlockHeader>()
        for (const r of records) blocks.set(r.blockNumber, { blockNumber: r.blockNumber, blockHash: r.blockHash, timestamp: r.timestamp })
        await commitBatch(store, { records, blocks: [...blocks.values()], head: stepHead, tokens })
        tokens = []
        converted += records.length
        if (performance.now() - lastLog >= PROGRESS_EVERY_MS) {
          lastLog = performance.now()
          const seconds = (lastLog - started) / 1000
          const rate = converted / seconds
          log.info('migrate: converting', { block: stepHead.blockNumber, settlements: converted, of: total, settlementsPerSecond: Math.round(rate), etaSeconds: Math.round((total - converted) / rate) })
        }
      }
      let step: SettlementRecord[] = []
      for (const record of settlementsFrom(old, done ? blockEndPk(done.blockNumber) : LOWEST_PK)) {
        // A step ends at a block's end: its head is the last block it holds, whole.
        if (step.length >= STEP_SETTLEMENTS && record.blockNumber !== step.at(-1)!.blockNumber) {
          const last = step.at(-1)!
          await commit(step, { blockNumber: last.blockNumber, blockHash: last.blockHash })
          step = []
        }
        step.push(record)
      }
      // The last step ends at the old store's head, past its last settlement when blocks without any followed.
      if (step.length > 0 || readHead(store)?.blockNumber !== head.blockNumber) await commit(step, head)
      await store.env.flushed
      const seconds = (performance.now() - started) / 1000
      log.info('migrate: done', { settlements: converted, block: head.blockNumber, seconds: Math.round(seconds), settlementsPerSecond: Math.round(converted / Math.max(seconds, 0.001)) })
      if (converted !== total) throw new StoreError(`${from} says it holds ${total} settlements but ${converted} were read`)
        return { settlements: converted, head, seconds }
    } finally {
      await store.close()
    }
  } finally {
    await old.env.close()
  }
}
