/**
 * Statistics buckets: per recipient, per acquirer id and for every settlement, per hour and token, the
 * count, volume and fees of the settlements there. Written in the indexing transaction and taken back
 * with a rollback (both through stats.ts), so filtered `/stats` and `/stats/series` read a few hundred
 * entries for a merchant's month instead of summing its settlements.
 *
 * Decision: no payer buckets. Payers are many and pay rarely, so a payer's bucket holds about one
 * settlement: per-payer buckets cost one more read-modify-write and ~100 bytes per settlement (with
 * them, commitBatch ran 35 % slower and the store grew 200 bytes per settlement at 200k synthetic
 * settlements) and save little over walking the payer index, which the statistics do instead
 * (query/stats-plan.ts, bounded).
 */
import { bucketHourKey, bucketKeyString, decodeBucketKey, HOUR_SECONDS, indexKeyFromString, type BucketTag } from './keys.js'
import type { Store } from './open-store.js'

/**
 * A bucket's figures as stored: [count, volume, fees], the sums as decimal strings. An array, not an
 * object: msgpack writes an object's field names into every value, about 20 bytes of a bucket's 45.
 */
type BucketFigures = [count: number, volume: string, fees: string]

interface BucketDelta {
  count: number
  volume: bigint
  fees: bigint
}

/** A batch's change to the buckets, by bucket key string; plain data, so that it crosses threads. */
export type BucketChange = Map<string, BucketDelta>

/** A settlement's field values as latin1 strings of their raw bytes (`indexKeyString`). */
export interface BucketParties {
  token: string
  recipient: string
  acquirerId: string
}

function accumulate(change: BucketChange, key: string, amount: bigint, fee: bigint, sign: 1 | -1): void {
  let delta = change.get(key)
  if (!delta) change.set(key, (delta = { count: 0, volume: 0n, fees: 0n }))
  delta.count += sign
  delta.volume += sign === 1 ? amount : -amount
  delta.fees += sign === 1 ? fee : -fee
}

/** Adds (sign 1) or takes back (sign -1) one settlement. */
export function addToBuckets(change: BucketChange, p: BucketParties, timestamp: number, amount: bigint, fee: bigint, sign: 1 | -1): void {
  const hour = Math.floor(timestamp / HOUR_SECONDS)
  accumulate(change, bucketKeyString('all', '', hour, p.token), amount, fee, sign)
  accumulate(change, bucketKeyString('recipient', p.recipient, hour, p.token), amount, fee, sign)
  accumulate(change, bucketKeyString('acquirerId', p.acquirerId, hour, p.token), amount, fee, sign)
}

/** One read-modify-write per bucket touched; inside a write transaction. An emptied bucket is removed. */
export function writeBuckets(store: Store, change: BucketChange): void {
  for (const [id, { count, volume, fees }] of change) {
    if (count === 0 && volume === 0n && fees === 0n) continue
    const key = indexKeyFromString(id)
    const [currentCount, currentVolume, currentFees] = (store.buckets.get(key) as BucketFigures | undefined) ?? [0, '0', '0']
    const next: BucketFigures = [
      currentCount + count,
      (BigInt(currentVolume) + volume).toString(),
      (BigInt(currentFees) + fees).toString(),
    ]
    if (next[0] === 0) store.buckets.removeSync(key)
    else store.buckets.putSync(key, next)
  }
}

export interface BucketEntry {
  hour: number
  /** Lowercase hex without 0x. */
  token: string
  count: number
  volume: bigint
  fees: bigint
}

/** The buckets of one field value (raw bytes; empty for `all`) for hours fromHour..toHour, in hour order. */
export function* readBuckets(store: Store, tag: BucketTag, value: Uint8Array, fromHour: number, toHour: number): Generator<BucketEntry> {
  const range = { start: bucketHourKey(tag, value, fromHour), end: bucketHourKey(tag, value, toHour + 1) }
  for (const { key, value: figures } of store.buckets.getRange(range)) {
    const { hour, token } = decodeBucketKey(key as Buffer)
    const [count, volume, fees] = figures as BucketFigures
    yield { hour, token, count, volume: BigInt(volume), fees: BigInt(fees) }
  }
}
