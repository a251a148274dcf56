/**
 * A recipient's page from its covering runs (store/covering-runs.ts): the recipient index gives the
 * ordinal of the page's first settlement inside the page's key range, and the runs give that one and
 * the next in order, side by side. Twenty settlements are then one or two reads of adjacent bytes
 * instead of twenty scattered primary reads.
 */
import { decodePk, indexValueOrdinal, PK_BYTES, RunReader } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { KeyRange } from './block-range.js'
import { indexWalk, type FieldFilter } from './field-index.js'
import { firstOf } from './first-of.js'
import { BYTES_PER_SETTLEMENT, PageWriter } from './page-writer.js'
import type { TokenCache } from './token-cache.js'

export const isCovered = (f: FieldFilter) => f.field === 'recipient'

/** The page of a `recipient` filter alone; `total` is its count in the query's range. */
export function coveredPage(store: Store, tokens: TokenCache, f: FieldFilter, page: KeyRange | undefined, order: 'asc' | 'desc', limit: number, total: number): Buffer {
  const writer = new PageWriter(store, tokens, limit * BYTES_PER_SETTLEMENT)
  const first = page && firstOf(indexWalk(store, f, page, order))
  if (!page || !first) return writer.finish(undefined, total)
  const step = order === 'asc' ? 1 : -1
  const runs = new RunReader(store, f.key)
  let ordinal = indexValueOrdinal(first)
  // A copy: the run the last entry came from may be gone once the next one is read.
  const last = Buffer.allocUnsafe(PK_BYTES)
  for (let written = 0; ; written++, ordinal += step) {
    const entry = runs.at(ordinal)
    // Ordinals follow primary keys: walking away from `first`, only the bound ahead can be passed.
    const inPage = entry && (step > 0 ? Buffer.compare(entry.pk, page.high) < 0 : Buffer.compare(entry.pk, page.low) >= 0)
    // One settlement past the page says that a next page exists; the cursor is the page's last.
    if (!inPage) return writer.finish(undefined, total)
    if (written === limit) return writer.finish(decodePk(last), total)
    writer.record(entry.pk, entry)
    last.set(entry.pk)
  }
}
