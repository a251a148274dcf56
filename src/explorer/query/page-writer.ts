/**
 * Writes a `/events` page as JSON bytes: `{"events":[…],"nextCursor":…,"total":…}`. Settlements come
 * from this thread's arena of rendered settlements (settlement-json-cache.ts), or are written from
 * their stored bytes (store/record-json.ts) and remembered there; already rendered runs (key-views.ts)
 * are copied as they are.
 *
 * Page buffers are carved from 1 MiB slabs, as Node pools small Buffers: an 11 KB page would otherwise
 * be an ArrayBuffer of its own (about 1.6 µs per query with its garbage collection). Pages never share
 * bytes; a slab is freed once no page of it is held (the page cache keeps copies).
 */
import { encodeCursor, readRecord } from '../store/index.js'
import { decodePk, type Position } from '../store/index.js'
import type { Store } from '../store/index.js'
import { writeRecordJson } from '../store/index.js'
import { SettlementJsonCache } from './settlement-json-cache.js'
import type { TokenCache } from './token-cache.js'

const OPEN = Buffer.from('{"events":[')
export const EVENTS_START = OPEN.length
const COMMA = 0x2c
/** A settlement renders to about 570 bytes: a page buffer sized by this rarely grows. */
export const BYTES_PER_SETTLEMENT = 640
/** `],"nextCursor":"<cursor>","total":<n>}` at its longest, rounded up. */
const TAIL_BYTES = 96
const SLAB_BYTES = 1 << 20

const slab = {
  buffer: Buffer.allocUnsafe(0),
  used: 0,
  take(bytes: number): Buffer {
    if (this.used + bytes > this.buffer.length) {
      this.buffer = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bytes))
      this.used = 0
    }
    return this.buffer.subarray(this.used, this.used + bytes)
  },
  /** The first `length` bytes of `page` (from `take`, or a larger buffer it grew into) become the page. */
  keep(page: Buffer, length: number): Buffer {
    if (page.buffer === this.buffer.buffer) this.used += (length + 7) & ~7
    return page.subarray(0, length)
  },
}

/** A copy of `bytes` carved from the slab like a page (a worker's answer, result-rings.ts). */
export function slabCopy(bytes: Uint8Array): Buffer {
  const page = slab.take(bytes.length)
  page.set(bytes)
  return slab.keep(page, bytes.length)
}

const caches = new WeakMap<Store, SettlementJsonCache>()

/** This thread's arena of rendered settlements for `store`, emptied if a rollback happened since it was last used. */
function settlementJsonCache(store: Store): SettlementJsonCache {
  let cache = caches.get(store)
  if (!cache) caches.set(store, (cache = new SettlementJsonCache()))
  cache.sync(store)
  return cache
}

export class PageWriter {
  #store: Store
  #tokens: TokenCache
  #rendered: SettlementJsonCache
  #out: Buffer
  #p: number
  #events = 0

  /** `bytesHint`: the events' bytes expected (the buffer grows past it when needed). */
  constructor(store: Store, tokens: TokenCache, bytesHint: number) {
    this.#store = store
    this.#tokens = tokens
    this.#rendered = settlementJsonCache(store)
    this.#out = slab.take(OPEN.length + bytesHint + TAIL_BYTES)
    this.#out.set(OPEN, 0)
    this.#p = OPEN.length
  }

  /** Appends the settlement stored under `pk`. */
  settlement(pk: Buffer): void {
    this.record(pk, undefined)
  }

  /** Appends the settlement stored under `pk`, whose record `held` gives when the caller holds it (a run). */
  record(pk: Buffer, held: { record(): Buffer } | undefined): void {
    this.#comma()
    const { blockNumber, logIndex } = decodePk(pk)
    const key = this.#rendered.key(blockNumber, logIndex)
    let end = this.#rendered.copyInto(key, this.#out, this.#p)
    if (end < 0) {
      const record = held ? held.record() : readRecord(this.#store, pk)!
      while ((end = writeRecordJson(this.#out, this.#p, pk, record, this.#tokens, this.#store)) < 0) this.#grow()
      this.#rendered.remember(key, this.#out, this.#p, end)
    }
    this.#p = end
  }

  /** Appends `count` settlements already rendered as `json[start, end)`, separated by commas. */
  rendered(json: Buffer, start: number, end: number, count: number): void {
    if (count === 0) return
    this.#comma()
    while (this.#p + end - start > this.#out.length) this.#grow()
    json.copy(this.#out, this.#p, start, end)
    this.#p += end - start
    this.#events += count - 1
  }

  /** Bytes written so far; the first settlement starts at `EVENTS_START`. */
  get written(): number {
    return this.#p
  }

  /** A copy of the bytes written so far. */
  copy(): Buffer {
    return Buffer.copyBytesFrom(this.#out, 0, this.#p)
  }

  /**
   * The page; `next` is the position the next page continues after, if there is one. A total that is a
   * lower bound (a walk cut off at EVENTS_MAX_WALK) says so with `"totalRelation":"gte"`; an exact one
   * has no such field, as the specification's envelope.
   */
  finish(next: Position | undefined, total: number, totalIsLowerBound = false): Buffer {
    const cursor = next ? `"${encodeCursor(next.blockNumber, next.logIndex)}"` : 'null'
    const tail = `],"nextCursor":${cursor},"total":${total}${totalIsLowerBound ? ',"totalRelation":"gte"' : ''}}`
    while (this.#p + tail.length > this.#out.length) this.#grow()
    this.#p += this.#out.write(tail, this.#p, 'latin1')
    return slab.keep(this.#out, this.#p)
  }

  #comma(): void {
    if (this.#events++ === 0) return
    if (this.#p >= this.#out.length) this.#grow()
    this.#out[this.#p++] = COMMA
  }

  #grow(): void {
    const bigger = Buffer.allocUnsafe(this.#out.length * 2)
    this.#out.copy(bigger, 0, 0, this.#p)
    this.#out = bigger
  }
}
