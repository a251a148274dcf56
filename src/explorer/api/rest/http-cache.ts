/**
 * What a shared cache (a CDN, nginx, a browser) may do with the REST answers (issue 40), in one place;
 * docs/explorer.md "Caching" states the rules for operators.
 *
 * Validators. Every answer depends on the settlements indexed — `/stats` also on the hour (its `last24h`),
 * the JSON root on the indexed head — so its ETag is derived from those, never from the body: the count
 * of settlements and the hash of the newest one's block (query/store-summary.ts), which any commit or
 * reorg changes and two replicas holding the same settlements share. It is read before the query runs:
 * an answer may be newer than its tag (a commit between the two), never older, so a 304 never keeps a
 * stale body; and `If-None-Match` equal to the current tag is answered 304 without running the query.
 * Pages bounded by a `toBlock` at least HTTP_FINAL_DEPTH blocks below the indexed head are final: only a
 * reorg deeper than that (plus the explorer's own CONFIRMATION_BLOCKS) could change them, so their tag
 * is this replica's reorg generation, and new settlements do not change it.
 *
 * Freshness. Final answers: `max-age` HTTP_FINAL_MAX_AGE_SECONDS. Everything else moves with the head:
 * `max-age` HTTP_MAX_AGE_SECONDS (about a block), then revalidation, which costs no query while nothing
 * changed. A reorg therefore shows in a cache within HTTP_MAX_AGE_SECONDS for moving answers; a removed
 * settlement can stay in a final answer for HTTP_FINAL_MAX_AGE_SECONDS only past a reorg deeper than
 * HTTP_FINAL_DEPTH + CONFIRMATION_BLOCKS, which the confirmation depth is chosen to rule out.
 *
 * The validators are recomputed only after the indexer reports a commit or a rollback (IndexerListener);
 * the indexed head, which moves with empty blocks too, is read per request where it matters.
 */
import type { HttpCacheOptions } from '../../../config/index.js'
import type { IndexerListener } from '../../indexer/index.js'
import { currentHour, indexedHead, settlementsVersion } from '../../query/index.js'
import type { Store } from '../../store/index.js'

/** The headers of a cacheable answer: its validator and how long it may be kept. */
export interface Validity {
  etag: string
  headers: Record<string, string>
}

export class HttpValidators implements IndexerListener {
  readonly #store: Store
  readonly #options: HttpCacheOptions
  readonly #moving: string
  readonly #final: string
  #reports = 0
  #computedAt = -1
  #data = ''
  #generation = 0

  constructor(store: Store, options: HttpCacheOptions) {
    this.#store = store
    this.#options = options
    this.#moving = `public, max-age=${options.maxAgeSeconds}`
    this.#final = `public, max-age=${options.finalMaxAgeSeconds}`
  }

  committed(): void {
    this.#reports++
  }

  removed(): void {
    this.#reports++
  }

  #refresh(): void {
    if (this.#computedAt === this.#reports) return
    this.#computedAt = this.#reports
    const { count, newestBlockHash, generation } = settlementsVersion(this.#store)
    this.#data = `"s${count}.${newestBlockHash.slice(2, 18)}`
    this.#generation = generation
  }

  /** An answer about the settlements (a page, a lookup); final when bounded by `toBlock` deep below the head. */
  settlements(toBlock?: number): Validity {
    this.#refresh()
    // A page without an upper bound (a cached page's is Infinity) moves with the head: no head to read.
    const head = toBlock === undefined || !Number.isFinite(toBlock) ? undefined : indexedHead(this.#store)?.blockNumber
    if (head !== undefined && toBlock! <= head - this.#options.finalDepth) return this.#validity(`"f${this.#generation}"`, this.#final)
    return this.#validity(`${this.#data}"`, this.#moving)
  }

  /** `/stats` and its series: the settlements, and the hour that bounds `last24h`. */
  stats(): Validity {
    this.#refresh()
    return this.#validity(`${this.#data}.h${currentHour()}"`, this.#moving)
  }

  /** The JSON root, which names the indexed head. */
  head(): Validity {
    const head = indexedHead(this.#store)
    return this.#validity(`"h${head?.blockNumber ?? 0}.${head?.blockHash.slice(2, 18) ?? ''}"`, this.#moving)
  }

  #validity(etag: string, cacheControl: string): Validity {
    return { etag, headers: { etag, 'cache-control': cacheControl, vary: 'accept-encoding' } }
  }
}
