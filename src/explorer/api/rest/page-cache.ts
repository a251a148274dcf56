/**
 * Rendered `/events` pages by query string, dropped exactly when their answer changes.
 *
 * A page's answer (its events, `nextCursor` and `total`) is a function of the settlements that match
 * its field filters inside its block and time bounds. Settlements only change by being committed or
 * rolled back, and the indexer reports both (IndexerListener): a page is dropped when a settlement
 * that matches its filters and lies inside its bounds comes or goes, and only then. Pages sit in
 * groups by filter topic (live/topics.ts, the live feeds' grouping), so a settlement finds the pages
 * it changes with one hash lookup per filter shape in use, never a scan. A page whose bounds end
 * below the head is never dropped by new blocks; one without bounds (or bounds past the head) is
 * dropped by every matching settlement.
 *
 * Freshness: lmdb-js commits on its write thread, so a reader may see a settlement write before the
 * indexer reports it. While a write is in flight (store/settlement-writes.ts) the cache neither
 * answers nor keeps pages; the write settles and the indexer reports it in one event-loop turn, and
 * lmdb-js renews this thread's read snapshot on the way. So a page served from here is never older
 * than what any reader can see. A page from a worker may have been read before a report that came
 * while it was in flight: `version` counts reports, and such a page is kept only when none came.
 *
 * A query string becomes cacheable on its second miss (one-off pages, such as a crawl of cursors,
 * would otherwise push out the hot ones), and pages are evicted least recently used past `maxBytes`.
 * The key is the query string as sent: the same query spelled differently is another entry, exact too.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { ContentCoding } from '../../../platform/http/index.js'
import type { IndexerListener } from '../../indexer/index.js'
import type { Metrics } from '../../../platform/observability/index.js'
import { fieldValuesOf, writeInFlight, type EventsQuery } from '../../query/index.js'
import type { Store, StoredSettlement } from '../../store/index.js'
import { ShapeCounts, filterTopic, topicsOf } from '../live/topics.js'

/** A cached page as the routes see it: its body, its block bound (for how long a cache may keep it), its encodings. */
export interface CachedPage {
  readonly body: Uint8Array
  readonly toBlock: number
  /** Made once per entry, on the first request that accepts each (`encoded`). */
  br?: Uint8Array
  gzip?: Uint8Array
}

interface Entry extends CachedPage {
  key: string
  topic: string
  shape: number
  fromBlock: number
  toBlock: number
  fromTimestamp: number
  toTimestamp: number
}

export interface PageCacheOptions {
  store: Store
  maxBytes: number
  /** Query strings remembered for admission (a page is cached on its second miss). */
  maxCandidates?: number
  metrics?: Metrics
}

export const DEFAULT_PAGE_CACHE_BYTES = 32 * 1024 ** 2
/** Dynamic-content settings: an 11 KB page in ~0.2 ms, within a few percent of the best ratio (bench HTTP). */
const BROTLI_QUALITY = 5
const GZIP_LEVEL = 6

export class PageCache implements IndexerListener {
  #writing: () => boolean
  #maxBytes: number
  #maxCandidates: number
  /** In least recently used order. */
  #entries = new Map<string, Entry>()
  #byTopic = new Map<string, Set<Entry>>()
  #shapes = new ShapeCounts()
  #candidates = new Set<string>()
  #bytes = 0
  #version = 0
  #hits: (by: number) => void = () => {}
  #drops: (by: number) => void = () => {}

  constructor({ store, maxBytes, maxCandidates = 10_000, metrics }: PageCacheOptions) {
    this.#writing = writeInFlight(store)
    this.#maxBytes = maxBytes
    this.#maxCandidates = maxCandidates
    if (metrics) {
      this.#hits = metrics.counter('page_cache_hits_total', '/events answers served from the page cache')
      this.#drops = metrics.counter('page_cache_drops_total', 'Cached pages dropped because a settlement they cover was committed or rolled back')
      metrics.collected('page_cache_pages', 'Pages in the page cache', () => this.#entries.size)
      metrics.collected('page_cache_bytes', 'Bytes of the pages in the page cache', () => this.#bytes)
    }
  }

  /** Changes whenever pages may have been dropped: a page read before a change must not be kept after it. */
  get version(): number {
    return this.#version
  }

  get(key: string): CachedPage | undefined {
    const entry = this.#entries.get(key)
    if (!entry || this.#writing()) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    this.#hits(1)
    return entry
  }

  /**
   * The page compressed as the client accepts, made on the first such request and kept with the entry
   * (counted in its bytes): compressed once per cached page, never per request.
   */
  encoded(page: CachedPage, coding: ContentCoding): Uint8Array {
    const entry = page as Entry
    let bytes = entry[coding]
    if (bytes) return bytes
    const body = entry.body
    bytes =
      coding === 'br'
        ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
        : gzipSync(body, { level: GZIP_LEVEL })
    if (this.#entries.get(entry.key) === entry) {
      entry[coding] = bytes
      this.#bytes += bytes.byteLength
    }
    return bytes
  }

  /** Offers a page computed for `query` from a snapshot taken when `version` was `readAt`. */
  offer(key: string, query: EventsQuery, body: Uint8Array, readAt: number): void {
    if (readAt !== this.#version || this.#writing() || body.byteLength > this.#maxBytes || this.#entries.has(key)) return
    if (!this.#candidates.has(key)) {
      if (this.#candidates.size >= this.#maxCandidates) this.#candidates.clear()
      this.#candidates.add(key)
      return
    }
    const { shape, topic } = filterTopic(query)
    const entry: Entry = {
      key,
      // A page may be a view of a larger buffer (run-events-query.ts); kept, it holds only its bytes.
      body: body.byteLength < body.buffer.byteLength ? Buffer.copyBytesFrom(body) : body,
      topic,
      shape,
      fromBlock: query.fromBlock ?? 0,
      toBlock: query.toBlock ?? Number.POSITIVE_INFINITY,
      fromTimestamp: query.fromTimestamp ?? 0,
      toTimestamp: query.toTimestamp ?? Number.POSITIVE_INFINITY,
    }
    this.#entries.set(key, entry)
    this.#bytes += body.byteLength
    let group = this.#byTopic.get(topic)
    if (!group) this.#byTopic.set(topic, (group = new Set()))
    group.add(entry)
    this.#shapes.add(shape, 1)
    for (const oldest of this.#entries.values()) {
      if (this.#bytes <= this.#maxBytes) break
      this.#drop(oldest)
    }
  }

  committed(settlements: StoredSettlement[]): void {
    this.#dropChangedBy(settlements)
  }

  removed(settlements: StoredSettlement[]): void {
    this.#dropChangedBy(settlements)
  }

  #dropChangedBy(settlements: StoredSettlement[]): void {
    this.#version++
    if (this.#entries.size === 0) return
    for (const s of settlements) {
      const values = fieldValuesOf(s)
      for (const shape of this.#shapes.active) {
        for (const topic of topicsOf(shape, values)) {
          const group = this.#byTopic.get(topic)
          if (!group) continue
          for (const entry of group) {
            if (!covers(entry, s)) continue
            this.#drop(entry)
            this.#drops(1)
          }
        }
      }
    }
  }

  #drop(entry: Entry): void {
    this.#entries.delete(entry.key)
    this.#bytes -= entry.body.byteLength + (entry.br?.byteLength ?? 0) + (entry.gzip?.byteLength ?? 0)
    const group = this.#byTopic.get(entry.topic)!
    group.delete(entry)
    if (group.size === 0) this.#byTopic.delete(entry.topic)
    this.#shapes.add(entry.shape, -1)
  }
}

/** Whether a settlement lies inside a page's block and time bounds (its filters matched by topic). */
const covers = (e: Entry, s: StoredSettlement) =>
  s.blockNumber >= e.fromBlock && s.blockNumber <= e.toBlock && s.timestamp >= e.fromTimestamp && s.timestamp <= e.toTimestamp
