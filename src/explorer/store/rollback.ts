/**
 * Takes back everything indexed above a block (a chain reorganisation), in one transaction: the
 * settlements, their index entries and runs, block hashes and times, and their share of the
 * stats. Removed settlements are always the newest of every key, so ordinals stay dense.
 */
import type { Hex } from '../../wire/index.js'
import { blockEndPk, decodeBlockKey, decodeHexKey, encodeBareHexKey, encodeBlockKey, encodePk, encodeTimeKey } from './keys.js'
import { forgetOrdinals } from './commit-batch.js'
import { readCount, readGeneration } from './meta.js'
import { INDEXED_FIELDS, indexKeysOf, type Store } from './open-store.js'
import { fieldHex, type StoredSettlement } from './record.js'
import { readSettlement, truncateRuns } from './covering-runs.js'
import { findId } from './dictionary.js'
import { countedWrite } from './settlement-writes.js'
import { applyToStats } from './stats.js'
import { writeAmounts } from './amounts.js'

/** Resolves with the removed settlements in reverse chain order (newest first). */
export async function rollbackAbove(store: Store, ancestor: { blockNumber: number; blockHash: Hex }): Promise<StoredSettlement[]> {
  forgetOrdinals(store)
  return countedWrite(store, () => store.env.transaction(() => {
    const removed: StoredSettlement[] = []
    for (const key of store.events.getKeys({ start: blockEndPk(ancestor.blockNumber) })) {
      removed.push(readSettlement(store, key)!)
    }
    removed.reverse()

    for (const s of removed) {
      const pk = encodePk(s.blockNumber, s.logIndex)
      for (const field of INDEXED_FIELDS) {
        const db = store.indexes[field]
        for (const indexKey of indexKeysOf(field, s)) {
          for (const value of db.getValues(indexKey, { start: pk, limit: 1 })) db.removeSync(indexKey, value)
        }
      }
      store.events.removeSync(pk)
    }
    for (const recipient of new Set(removed.map((s) => fieldHex(s, 'recipient')))) {
      const key = encodeBareHexKey(recipient)
      truncateRuns(store, findId(store, 'recipient', key)!, store.indexes.recipient.getValuesCount(key))
    }
    for (const { key: blockKey } of store.blocks.getRange({ start: encodeBlockKey(ancestor.blockNumber + 1) })) {
      store.blocks.removeSync(blockKey)
    }
    const removedTimes = new Map(removed.map((s) => [s.blockNumber, s.timestamp]))
    for (const [blockNumber, timestamp] of removedTimes) store.times.removeSync(encodeTimeKey(timestamp, blockNumber))

    applyToStats(store, removed, -1)
    writeAmounts(store, removed, -1)
    store.meta.putSync('count', readCount(store) - removed.length)
    store.meta.putSync('head', ancestor)
    store.meta.putSync('generation', readGeneration(store) + 1)
    return removed
  }))
}

/** Indexed blocks with a stored hash, newest first, at or below `blockNumber`. */
export function* storedBlocksDownFrom(store: Store, blockNumber: number): Generator<{ blockNumber: number; blockHash: Hex }> {
  for (const { key: blockKey, value } of store.blocks.getRange({ start: encodeBlockKey(blockNumber), reverse: true })) {
    yield { blockNumber: decodeBlockKey(blockKey), blockHash: decodeHexKey(value) }
  }
}
