/**
 * Turns block and timestamp bounds into one range of primary keys, [low, high). Timestamps never
 * decrease with block number, so a timestamp bound is a block bound found in the time index.
 */
import { blockEndPk, blockStartPk, decodeTimeKey, encodeTimeKey } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { EventsQuery } from './events-query.js'

export interface KeyRange {
  low: Buffer
  high: Buffer
  bounded: boolean
}

const MAX_BLOCK = 2 ** 48 - 2

/** `undefined` when the bounds exclude every settlement. */
export function keyRange(store: Store, q: EventsQuery): KeyRange | undefined {
  let low = q.fromBlock ?? 0
  let high = Math.min(q.toBlock ?? MAX_BLOCK, MAX_BLOCK)
  if (q.fromTimestamp !== undefined) {
    const first = firstKey(store.times.getKeys({ start: encodeTimeKey(q.fromTimestamp, 0), limit: 1 }))
    if (!first) return undefined
    low = Math.max(low, decodeTimeKey(first).blockNumber)
  }
  if (q.toTimestamp !== undefined) {
    if (q.toTimestamp < 0) return undefined
    const boundary = encodeTimeKey(Math.min(q.toTimestamp + 1, 2 ** 32 - 1), 0)
    const last = firstKey(store.times.getKeys({ start: boundary, reverse: true, limit: 2 }), boundary)
    if (!last) return undefined
    high = Math.min(high, decodeTimeKey(last).blockNumber)
  }
  if (low > high) return undefined
  const bounded = q.fromBlock !== undefined || q.toBlock !== undefined || q.fromTimestamp !== undefined || q.toTimestamp !== undefined
  return { low: blockStartPk(low), high: blockEndPk(high), bounded }
}

function firstKey(keys: Iterable<Buffer>, excluding?: Buffer): Buffer | undefined {
  for (const key of keys) if (!excluding || !key.equals(excluding)) return key
  return undefined
}
