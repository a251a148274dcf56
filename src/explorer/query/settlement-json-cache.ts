/**
 * Rendered settlement JSON by position, one cache per thread (each thread opens its own Store), kept
 * in one fixed arena: a hit is a hash lookup and a copy, no LMDB read and no rendering, and the cache
 * makes no garbage. The arena fills in 1 MiB segments, oldest first; reusing a segment forgets
 * everything in it. A committed settlement never changes except through a rollback, which bumps the
 * store's generation (read in the query's own snapshot): the cache empties when it sees a new one.
 *
 * The index is a direct-mapped table in typed arrays, not a Map: positions past 2^31 are heap numbers
 * as Map keys, and on pages read from all over the store (few hits) the Map's lookups, inserts and
 * evictions cost 13 % of the query (86 → 75 µs without the cache). A slot holds the last position
 * hashed to it; an entry is live while its segment has not been reused since (segment epochs).
 */
import { readGeneration } from '../store/index.js'
import type { Store } from '../store/index.js'

const SEGMENT_BITS = 20
const SEGMENT_BYTES = 1 << SEGMENT_BITS
const SEGMENTS = 32
/** Longer renders (very long token symbols) are not kept. */
const MAX_ENTRY_BYTES = 2048
/** Positions are kept as one number: block · 2^20 + log index, exact below 2^53. */
const LOG_INDEX_LIMIT = 2 ** 20
const BLOCK_LIMIT = 2 ** 33
/** About four slots per entry the arena can hold, so that few live entries share a slot. */
const SLOT_BITS = 18
/**
 * Lookups per window of the hit count that decides what a miss remembers. Pages spread over the whole
 * store find almost nothing here, and remembering every miss (a copy into a cold arena, four slot
 * writes) cost them 8 of 51 µs at 1M: below 1 hit in 8 lookups, one miss in 8 is remembered, so
 * settlements asked again still come in.
 */
export const WINDOW = 4096
export const SAMPLE = 8

function slotOf(key: number): number {
  const logIndex = key % LOG_INDEX_LIMIT
  const h = Math.imul((key / LOG_INDEX_LIMIT) | 0, 0x9e3779b1) ^ Math.imul(logIndex, 0x85ebca6b)
  return Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> (32 - SLOT_BITS)
}

export class SettlementJsonCache {
  #arena: Buffer | undefined
  #keys = new Float64Array(1 << SLOT_BITS).fill(-1)
  #offsets = new Int32Array(1 << SLOT_BITS)
  #lengths = new Int32Array(1 << SLOT_BITS)
  /** The epoch of the entry's segment when it was written; the segment's epoch moves on each reuse. */
  #epochs = new Int32Array(1 << SLOT_BITS)
  #segmentEpochs = new Int32Array(SEGMENTS)
  #segment = 0
  #at = 0
  #generation = -1
  #lookups = 0
  #hits = 0
  /** Remembering one miss in SAMPLE (the last window's hits were fewer than one in SAMPLE). */
  #sampling = false
  #misses = 0

  /** Call once per query, before `copyInto`: drops everything if a rollback happened since. */
  sync(store: Store): void {
    const generation = readGeneration(store)
    if (generation === this.#generation) return
    this.#generation = generation
    this.#keys.fill(-1)
    this.#segment = 0
    this.#at = 0
  }

  /** The key of a position, or -1 for one the cache does not keep. */
  key(blockNumber: number, logIndex: number): number {
    return blockNumber < BLOCK_LIMIT && logIndex < LOG_INDEX_LIMIT ? blockNumber * LOG_INDEX_LIMIT + logIndex : -1
  }

  /** Copies the settlement's JSON to `out[p]` and returns where it ends; -1 when absent or when it does not fit. */
  copyInto(key: number, out: Buffer, p: number): number {
    if (key < 0) return -1
    if (++this.#lookups === WINDOW) {
      this.#sampling = this.#hits * SAMPLE < WINDOW
      this.#lookups = this.#hits = 0
    }
    const slot = slotOf(key)
    if (!this.#live(slot, key)) return -1
    this.#hits++
    const length = this.#lengths[slot]!
    if (p + length > out.length) return -1
    const offset = this.#offsets[slot]!
    this.#arena!.copy(out, p, offset, offset + length)
    return p + length
  }

  #live(slot: number, key: number): boolean {
    return this.#keys[slot] === key && this.#epochs[slot] === this.#segmentEpochs[this.#offsets[slot]! >>> SEGMENT_BITS]
  }

  /** Keeps `bytes[start, end)` as the JSON of the settlement at `key`. */
  remember(key: number, bytes: Buffer, start: number, end: number): void {
    const length = end - start
    if (key < 0 || length >= MAX_ENTRY_BYTES) return
    if (this.#sampling && ++this.#misses % SAMPLE !== 0) return
    const slot = slotOf(key)
    if (this.#live(slot, key)) return
    this.#arena ??= Buffer.allocUnsafe(SEGMENTS * SEGMENT_BYTES)
    if (this.#at + length > (this.#segment + 1) * SEGMENT_BYTES) {
      this.#segment = (this.#segment + 1) % SEGMENTS
      this.#at = this.#segment * SEGMENT_BYTES
      this.#segmentEpochs[this.#segment]!++
    }
    bytes.copy(this.#arena, this.#at, start, end)
    this.#keys[slot] = key
    this.#offsets[slot] = this.#at
    this.#lengths[slot] = length
    this.#epochs[slot] = this.#segmentEpochs[this.#segment]!
    this.#at += length
  }
}
