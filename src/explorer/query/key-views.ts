/**
 * Views of hot single-field filters (a popular recipient's, payer's or acquirer's settlements): every
 * settlement of that value in chain order with its JSON rendered newest first (key-view.ts). Any page
 * of that filter — any cursor, either order, any limit, any block or time bounds — is then a few
 * binary searches and one copy (newest first) or `limit` copies (oldest first), its exact total a
 * difference of two searches: a different page on every request costs about what a cached one does.
 *
 * A view is built (on the server thread) once its filter has missed `admitAfter` times, and at least
 * once per 25 of its settlements, within the last 10,000 misses: so a build (rendering every settlement
 * of the value) costs about a page per page it answers at most, and filters asked rarely, or spread
 * over many values, never pay for one. Views hold values with at most `maxSettlements` settlements,
 * least recently used first out past `maxBytes`.
 *
 * Exact, by the page cache's argument (api/rest/page-cache.ts): the indexer's report of committed
 * settlements adds each to the views of its five field values (it is newer than all they hold), a
 * rollback drops the views of the values it touched, and while a settlement write is in flight no
 * view answers. `address` filters (two indexes merged) have no views.
 */
import type { IndexerListener } from '../indexer/index.js'
import type { Metrics } from '../../platform/observability/index.js'
import { HIGHEST_PK, LOWEST_PK, decodePk, indexValuePk, readRecord } from '../store/index.js'
import type { Store } from '../store/index.js'
import { recordJson } from '../store/index.js'
import { fieldHex, type StoredSettlement } from '../store/index.js'
import { settlementText } from './settlement-text.js'
import { settlementWrites, type WriteCounts } from '../store/index.js'
import { keyRange } from './block-range.js'
import type { EventsQuery } from './events-query.js'
import { fieldFilters, indexWalk, type FieldFilter } from './field-index.js'
import { KeyView } from './key-view.js'
import { BYTES_PER_SETTLEMENT, PageWriter } from './page-writer.js'
import { pageBounds } from './run-events-query.js'
import type { TokenCache } from './token-cache.js'

const VIEW_FIELDS = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId'] as const
const MISS_WINDOW = 10_000
/** A build renders every settlement of the value: it waits for a miss per this many of them. */
const SETTLEMENTS_PER_MISS = 25

export interface KeyViewsOptions {
  store: Store
  tokens: TokenCache
  maxBytes: number
  maxSettlements?: number
  admitAfter?: number
  metrics?: Metrics
}

export const DEFAULT_KEY_VIEW_BYTES = 64 * 1024 ** 2

export class KeyViews implements IndexerListener {
  #store: Store
  #tokens: TokenCache
  #writes: WriteCounts
  #maxBytes: number
  #maxSettlements: number
  #admitAfter: number
  /** In least recently used order. */
  #views = new Map<string, KeyView>()
  /** Misses by filter since the window began. */
  #misses = new Map<string, number>()
  #window = 0
  #bytes = 0
  #answered: (by: number) => void = () => {}

  constructor({ store, tokens, maxBytes, maxSettlements = 4096, admitAfter = 8, metrics }: KeyViewsOptions) {
    this.#store = store
    this.#tokens = tokens
    this.#writes = settlementWrites(store)
    this.#maxBytes = maxBytes
    this.#maxSettlements = maxSettlements
    this.#admitAfter = admitAfter
    if (metrics) {
      this.#answered = metrics.counter('key_view_pages_total', '/events pages answered from a view of a single-field filter')
      metrics.collected('key_views', 'Views of single-field filters held', () => this.#views.size)
      metrics.collected('key_view_bytes', 'Bytes of rendered settlements held in views', () => this.#bytes)
    }
  }

  /** The page from a view of the query's filter, or `undefined` when none answers it (the query engine will). */
  page(q: EventsQuery): Buffer | undefined {
    const filters = fieldFilters(q)
    // Views hold every settlement of a value; amount bounds would need a check per settlement.
    if (q.minAmount !== undefined || q.maxAmount !== undefined) return undefined
    if (filters.length !== 1 || filters[0]!.field === 'address' || this.#writes.started !== this.#writes.settled) return undefined
    const view = this.#view(filters[0]!)
    if (!view) return undefined
    const range = keyRange(this.#store, q)
    if (!range) return undefined
    const total = view.before(decodePk(range.high)) - view.before(decodePk(range.low))
    const bounds = pageBounds(range, q)
    const low = bounds ? view.before(decodePk(bounds.low)) : 0
    const high = bounds ? view.before(decodePk(bounds.high)) : 0
    const count = Math.min(q.limit, high - low)
    const page = new PageWriter(this.#store, this.#tokens, count * BYTES_PER_SETTLEMENT)
    // Newest first, the page is one run of the view's JSON; oldest first, one run per settlement.
    const last = q.order === 'desc' ? high - count : low + count - 1
    if (count > 0 && q.order === 'desc') page.rendered(...view.run(high - 1, last), count)
    else for (let i = low; i < low + count; i++) page.rendered(...view.run(i, i), 1)
    this.#answered(1)
    return page.finish(high - low > q.limit ? view.position(last) : undefined, total)
  }

  /** New settlements join the views of their values (they are newer than all a view holds). */
  committed(settlements: StoredSettlement[]): void {
    if (this.#views.size === 0) return
    for (const s of settlements) {
      let json: Buffer | undefined
      for (const field of VIEW_FIELDS) {
        const view = this.#views.get(`${field}:${fieldHex(s, field)}`)
        if (!view) continue
        if (view.count >= this.#maxSettlements) {
          this.#forget(view)
          continue
        }
        json ??= Buffer.from(settlementText(s, this.#tokens))
        this.#bytes -= view.bytes
        view.prepend(s, json)
        this.#bytes += view.bytes
      }
    }
    this.#evict()
  }

  /** A rollback drops the views of the values it touched. */
  removed(settlements: StoredSettlement[]): void {
    if (this.#views.size === 0) return
    for (const s of settlements) {
      for (const field of VIEW_FIELDS) {
        const view = this.#views.get(`${field}:${fieldHex(s, field)}`)
        if (view) this.#forget(view)
      }
    }
  }

  /** The view of a filter: held, built now (asked often enough), or none. */
  #view(f: FieldFilter): KeyView | undefined {
    const id = `${f.field}:${f.hex}`
    const held = this.#views.get(id)
    if (held) {
      this.#views.delete(id)
      this.#views.set(id, held)
      return held
    }
    if (++this.#window > MISS_WINDOW) {
      this.#window = 1
      this.#misses.clear()
    }
    const misses = (this.#misses.get(id) ?? 0) + 1
    this.#misses.set(id, misses)
    if (misses < this.#admitAfter) return undefined
    const settlements = this.#store.indexes[f.field as (typeof VIEW_FIELDS)[number]].getValuesCount(f.key)
    if (settlements > this.#maxSettlements || misses * SETTLEMENTS_PER_MISS < settlements) return undefined
    this.#misses.delete(id)
    return this.#build(id, f)
  }

  #build(id: string, f: FieldFilter): KeyView | undefined {
    const view = new KeyView(id)
    const everything = { low: LOWEST_PK, high: HIGHEST_PK, bounded: false }
    for (const value of indexWalk(this.#store, f, everything, 'asc')) {
      const pk = indexValuePk(value)
      view.prepend(decodePk(pk), recordJson(pk, readRecord(this.#store, pk)!, this.#tokens, this.#store))
    }
    if (view.bytes > this.#maxBytes) return undefined
    this.#views.set(id, view)
    this.#bytes += view.bytes
    this.#evict()
    return view
  }

  #evict(): void {
    for (const oldest of this.#views.values()) {
      if (this.#bytes <= this.#maxBytes) break
      this.#forget(oldest)
    }
  }

  #forget(view: KeyView): void {
    this.#views.delete(view.id)
    this.#bytes -= view.bytes
  }
}
